/** The delivery log of a key's webhook: every attempt, and "deliver again" per event. */
import type { PanelState } from '../../context.js';
import type { Lang } from '../../catalogue.js';
import { Table } from '../../kit/table.js';
import { RowAction } from '../../kit/post-form.js';
import { dateTime } from '../../kit/format.js';
import { webhookMessages } from './webhook-catalogue.js';
import type { PanelKeyView } from '../../../services/panel/account/keys.js';
import type { AttemptView, DeliveryView } from '../../../services/webhook-admin.js';

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

/** One line of the log: an attempt of an event (or the event, before its first attempt). */
interface Line {
  d: DeliveryView;
  a: AttemptView | null;
  i: number;
  last: boolean;
}

export function DeliveryLog(props: {
  state: PanelState;
  keyView: PanelKeyView;
  deliveries: DeliveryView[];
  editable: boolean;
}) {
  const { state, keyView: key, deliveries, editable } = props;
  const lang = state.lang;
  const t = webhookMessages[lang];
  const lines: Line[] = deliveries.flatMap((d) => {
    const attempts = d.attempts.length > 0 ? d.attempts : [null];
    return attempts.map((a, i) => ({ d, a, i, last: i === attempts.length - 1 }));
  });
  const again = (l: Line) => {
    if (!l.last || !editable || key.webhook_url === null) return null;
    const action = `/panel/keys/${key.id}/webhook/deliveries/${l.d.id}/redeliver`;
    return (
      <RowAction
        action={action}
        state={state}
        label={t.deliverAgain(l.d.event_type)}
        ariaLabel={`${t.deliverAgain(l.d.event_type)} (#${l.d.id})`}
        buttonClass="secondary"
        hx={swapSection(action)}
      />
    );
  };
  return (
    <>
      <h3>{t.log}</h3>
      <Table<Line>
        rows={lines}
        rowKey={(l) => `${l.d.id}-${l.i}`}
        empty={t.logEmpty}
        columns={[
          { header: t.colTime, cell: (l) => dateTime(l.a?.at ?? l.d.created_at, lang) },
          { header: t.colEvent, cell: (l) => <code>{l.d.event_type}</code> },
          {
            header: t.colResult,
            cell: (l) =>
              l.a === null ? t.noAttempt : l.a.http_status !== null ? t.httpStatus(l.a.http_status) : (l.a.error ?? ''),
          },
          { header: t.colDuration, cell: (l) => (l.a === null ? '' : t.durationMs(l.a.duration_ms)) },
          { header: t.colState, cell: (l) => stateText(lang, l.d.state) },
          { header: t.colActions, cell: again },
        ]}
      />
    </>
  );
}
