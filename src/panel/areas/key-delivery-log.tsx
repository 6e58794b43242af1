/** The delivery log of a key's webhook: every attempt, and "deliver again" per event. */
import type { PanelState } from '../context.js';
import { Csrf } from '../layout.js';
import { webhookMessages } from '../i18n/webhooks.js';
import type { Lang } from '../i18n/messages.js';
import { dateTime } from './key-format.js';
import type { PanelKeyView } from '../../services/account-panel.js';
import type { DeliveryView } from '../../services/webhook-admin.js';

function stateText(lang: Lang, state: DeliveryView['state']): string {
  const t = webhookMessages[lang];
  return { delivered: t.stateDelivered, pending: t.statePending, failed: t.stateFailed }[state];
}

/**
 * htmx, where it has it: the form posts in the background and only the webhook section is
 * replaced by the same section of the page the POST redirects to (the log with the new
 * attempt); without JavaScript the form posts and the whole page comes back.
 */
export const swapSection = (action: string): Record<string, string> => ({
  'hx-post': action,
  'hx-target': '#webhook-section',
  'hx-select': '#webhook-section',
  'hx-swap': 'outerHTML',
});

export function DeliveryLog(props: {
  state: PanelState;
  keyView: PanelKeyView;
  deliveries: DeliveryView[];
  editable: boolean;
}) {
  const { state, keyView: key, deliveries, editable } = props;
  const lang = state.lang;
  const t = webhookMessages[lang];
  return (
    <>
      <h3>{t.log}</h3>
      {deliveries.length === 0 ? (
        <p>{t.logEmpty}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.colTime}</th>
                <th scope="col">{t.colEvent}</th>
                <th scope="col">{t.colResult}</th>
                <th scope="col">{t.colDuration}</th>
                <th scope="col">{t.colState}</th>
                <th scope="col">{t.colActions}</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.flatMap((d) => {
                const attempts = d.attempts.length > 0 ? d.attempts : [null];
                return attempts.map((a, i) => (
                  <tr key={`${d.id}-${i}`}>
                    <td>{dateTime(a?.at ?? d.created_at, lang)}</td>
                    <td>
                      <code>{d.event_type}</code>
                    </td>
                    <td>
                      {a === null
                        ? t.noAttempt
                        : a.http_status !== null
                          ? t.httpStatus(a.http_status)
                          : (a.error ?? '')}
                    </td>
                    <td>{a === null ? '' : t.durationMs(a.duration_ms)}</td>
                    <td>{stateText(lang, d.state)}</td>
                    <td>
                      {i === attempts.length - 1 && editable && key.webhook_url !== null && (
                        <form
                          method="post"
                          action={`/panel/keys/${key.id}/webhook/deliveries/${d.id}/redeliver`}
                          {...swapSection(`/panel/keys/${key.id}/webhook/deliveries/${d.id}/redeliver`)}
                        >
                          <Csrf state={state} />
                          <button
                            type="submit"
                            class="secondary"
                            aria-label={`${t.deliverAgain(d.event_type)} (#${d.id})`}
                          >
                            {t.deliverAgain(d.event_type)}
                          </button>
                        </form>
                      )}
                    </td>
                  </tr>
                ));
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
