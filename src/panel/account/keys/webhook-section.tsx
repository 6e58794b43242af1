/** A key's webhook section: its form (URL, secret, attempts, events), the test button, the notices and the delivery log. */
import type { PanelState } from '../../context.js';
import { InputField, Notice } from '../../kit/fields.js';
import { PostForm, RowAction } from '../../kit/post-form.js';
import type { Lang } from '../../catalogue.js';
import { webhookMessages } from './webhook-catalogue.js';
import { keyDetailMessages } from './key-catalogue.js';
import { DeliveryLog, swapSection } from './delivery-log.js';
import type { PanelKeyView } from '../../../services/panel/account/keys.js';
import type { DeliveryView } from '../../../services/webhook-admin.js';
import { SELECTABLE_WEBHOOK_EVENTS } from '../../../domain/webhook.js';

function resultText(lang: Lang, d: DeliveryView): string {
  const last = d.attempts[d.attempts.length - 1];
  if (!last) return webhookMessages[lang].noAttempt;
  return last.http_status !== null ? webhookMessages[lang].httpStatus(last.http_status) : (last.error ?? '');
}

/** The notice of the last webhook action (from the redirect's query), if any. */
function webhookNotice(
  lang: Lang,
  query: Record<string, string | undefined>,
  deliveries: DeliveryView[],
): { text: string; kind: 'ok' | 'error' } | undefined {
  const t = webhookMessages[lang];
  if (query.webhook === 'saved') return { text: t.saved, kind: 'ok' };
  if (query.webhook === 'redelivered') return { text: t.redelivered, kind: 'ok' };
  if (query.webhook === 'redeliver-failed') return { text: t.redeliverFailed, kind: 'error' };
  if (query.webhook === 'busy') return { text: t.busy, kind: 'error' };
  if (query.webhook === 'no-url') return { text: t.noWebhook, kind: 'error' };
  if (query.webhook === 'refused') return { text: keyDetailMessages[lang].refused, kind: 'error' };
  if (query.webhook === 'test' && query.event !== undefined) {
    const d = deliveries.find((x) => String(x.id) === query.event);
    if (!d) return undefined;
    return d.state === 'delivered'
      ? { text: t.testDelivered(String(d.attempts[d.attempts.length - 1]?.http_status ?? '')), kind: 'ok' }
      : { text: t.testFailed(resultText(lang, d)), kind: 'error' };
  }
  return undefined;
}

export type WebhookErrors = { url?: string; secret?: string; attempts?: string; batch?: string; batchWait?: string };

/** A refused webhook form, as posted. */
export interface PostedWebhook {
  errors: WebhookErrors;
  url: string;
  attempts: string;
  batch: string;
  batchWait: string;
}

/** The webhook's whole-number settings, in the form's order: each field's input, the key's value and its bounds. */
const countSettings = {
  attempts: { id: 'webhook-attempts', name: 'webhook_attempts', min: 1, max: 50 },
  batch: { id: 'webhook-batch', name: 'webhook_batch', min: 1, max: 100 },
  batchWait: { id: 'webhook-batch-wait', name: 'webhook_batch_wait_ms', min: 0, max: 60000 },
} as const;
type CountSetting = keyof typeof countSettings;
const countFields: readonly CountSetting[] = ['attempts', 'batch', 'batchWait'];

/** One whole-number setting: as posted when refused, else the key's. */
function CountField(props: {
  field: CountSetting;
  keyView: PanelKeyView;
  posted: PostedWebhook | undefined;
  errors: WebhookErrors;
  state: PanelState;
}) {
  const t = webhookMessages[props.state.lang];
  const setting = countSettings[props.field];
  return (
    <InputField
      id={setting.id}
      name={setting.name}
      type="number"
      label={t[props.field]}
      value={props.posted?.[props.field] ?? String(props.keyView[setting.name])}
      hint={t[`${props.field}Hint`]}
      error={props.errors[props.field]}
      state={props.state}
      attributes={{ min: setting.min, max: setting.max, step: 1, inputMode: 'numeric' }}
    />
  );
}

export function WebhookSection(props: {
  state: PanelState;
  keyView: PanelKeyView;
  deliveries: DeliveryView[];
  query: Record<string, string | undefined>;
  posted?: PostedWebhook | undefined;
}) {
  const { state, keyView: key, deliveries } = props;
  const errors = props.posted?.errors ?? {};
  const lang = state.lang;
  const t = webhookMessages[lang];
  const notice = webhookNotice(lang, props.query, deliveries);
  const editable = key.state !== 'Revoked';
  return (
    <section id="webhook-section" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">{t.title}</h2>
      <div aria-live="polite">
        <Notice text={notice?.text} kind={notice?.kind} />
      </div>
      <p>{t.intro}</p>
      {editable && (
        <PostForm action={`/panel/keys/${key.id}/webhook`} state={state} class="stack">
          <InputField
            id="webhook-url"
            name="webhook_url"
            type="url"
            label={t.url}
            value={props.posted?.url ?? key.webhook_url ?? ''}
            error={errors.url}
            state={state}
          />
          <InputField
            id="webhook-secret"
            name="webhook_secret"
            type="password"
            label={t.secret}
            hint={`${key.webhook_secret_set ? t.secretSet : t.secretNotSet} ${t.secretHint}`}
            error={errors.secret}
            state={state}
            attributes={{ autocomplete: 'off' }}
          />
          {key.webhook_secret_set && (
            <label>
              <input type="checkbox" name="remove_secret" value="1" /> {t.removeSecret}
            </label>
          )}
          {countFields.map((field) => (
            <CountField key={field} field={field} keyView={key} posted={props.posted} errors={errors} state={state} />
          ))}
          <fieldset>
            <legend>{t.events}</legend>
            <div class="checks">
              {SELECTABLE_WEBHOOK_EVENTS.map((e) => (
                <label key={e}>
                  <input type="checkbox" name="webhook_events" value={e} checked={key.webhook_events.includes(e)} />{' '}
                  <code>{e}</code>
                </label>
              ))}
            </div>
          </fieldset>
          <div class="actions">
            <button type="submit">{t.save}</button>
          </div>
        </PostForm>
      )}
      {editable && key.webhook_url !== null && (
        <RowAction
          action={`/panel/keys/${key.id}/webhook/test`}
          state={state}
          label={t.sendTest}
          buttonClass="secondary"
          formClass="actions"
          hx={swapSection(`/panel/keys/${key.id}/webhook/test`)}
        />
      )}
      <DeliveryLog state={state} keyView={key} deliveries={deliveries} editable={editable} />
    </section>
  );
}
