/** A key's webhook: URL, secret, events, a test event, and the delivery log with "deliver again". */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PanelDeps, PanelState } from '../context.js';
import { accountIdOf } from '../context.js';
import { Csrf, FieldError, Notice } from '../layout.js';
import { webhookMessages } from '../i18n/webhooks.js';
import type { Lang } from '../i18n/messages.js';
import { formOf, httpUrl, list, text, ticked } from '../forms.js';
import { DeliveryLog, swapSection } from './key-delivery-log.js';
import type { IdParams } from './key-format.js';
import { idOf } from './key-format.js';
import type { PanelKeyView } from '../../services/account-panel.js';
import type { DeliveryView } from '../../services/webhook-admin.js';
import { SELECTABLE_WEBHOOK_EVENTS } from '../../domain/webhook.js';
import type { SelectableWebhookEvent } from '../../domain/webhook.js';
import type { KeySettings } from '../../ports/keys.js';
import { AdminError } from '../../services/admin-error.js';
import { audited } from '../audit.js';

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
  if (query.webhook === 'test' && query.event !== undefined) {
    const d = deliveries.find((x) => String(x.id) === query.event);
    if (!d) return undefined;
    return d.state === 'delivered'
      ? { text: t.testDelivered(String(d.attempts[d.attempts.length - 1]?.http_status ?? '')), kind: 'ok' }
      : { text: t.testFailed(resultText(lang, d)), kind: 'error' };
  }
  return undefined;
}

export type WebhookErrors = { url?: string; secret?: string; attempts?: string };

export function WebhookSection(props: {
  state: PanelState;
  keyView: PanelKeyView;
  deliveries: DeliveryView[];
  query: Record<string, string | undefined>;
  errors?: WebhookErrors;
  posted?: { url: string; attempts: string };
}) {
  const { state, keyView: key, deliveries, errors = {} } = props;
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
        <form method="post" action={`/panel/keys/${key.id}/webhook`} class="stack">
          <Csrf state={state} />
          <div>
            <label for="webhook-url">{t.url}</label>
            <input
              id="webhook-url"
              name="webhook_url"
              type="url"
              value={props.posted?.url ?? key.webhook_url ?? ''}
              aria-invalid={errors.url ? 'true' : undefined}
              aria-describedby={errors.url ? 'webhook-url-error' : undefined}
            />
            <FieldError id="webhook-url-error" text={errors.url} state={state} />
          </div>
          <div>
            <label for="webhook-secret">{t.secret}</label>
            <input
              id="webhook-secret"
              name="webhook_secret"
              type="password"
              autocomplete="off"
              aria-describedby={errors.secret ? 'webhook-secret-hint webhook-secret-error' : 'webhook-secret-hint'}
              aria-invalid={errors.secret ? 'true' : undefined}
            />
            <p class="muted" id="webhook-secret-hint">
              {key.webhook_secret_set ? t.secretSet : t.secretNotSet} {t.secretHint}
            </p>
            <FieldError id="webhook-secret-error" text={errors.secret} state={state} />
            {key.webhook_secret_set && (
              <label>
                <input type="checkbox" name="remove_secret" value="1" /> {t.removeSecret}
              </label>
            )}
          </div>
          <div>
            <label for="webhook-attempts">{t.attempts}</label>
            <input
              id="webhook-attempts"
              name="webhook_attempts"
              type="number"
              min={1}
              max={50}
              step={1}
              inputMode="numeric"
              value={props.posted?.attempts ?? String(key.webhook_attempts)}
              aria-invalid={errors.attempts ? 'true' : undefined}
              aria-describedby={
                errors.attempts ? 'webhook-attempts-hint webhook-attempts-error' : 'webhook-attempts-hint'
              }
            />
            <p class="muted" id="webhook-attempts-hint">
              {t.attemptsHint}
            </p>
            <FieldError id="webhook-attempts-error" text={errors.attempts} state={state} />
          </div>
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
        </form>
      )}
      {editable && key.webhook_url !== null && (
        <form
          method="post"
          action={`/panel/keys/${key.id}/webhook/test`}
          class="actions"
          {...swapSection(`/panel/keys/${key.id}/webhook/test`)}
        >
          <Csrf state={state} />
          <button type="submit" class="secondary">
            {t.sendTest}
          </button>
        </form>
      )}
      <DeliveryLog state={state} keyView={key} deliveries={deliveries} editable={editable} />
    </section>
  );
}

export function readWebhookForm(
  body: unknown,
  lang: Lang,
): { ok: Partial<KeySettings> } | { errors: WebhookErrors; url: string; attempts: string } {
  const form = formOf(body);
  const t = webhookMessages[lang];
  const rawUrl = text(form, 'webhook_url').trim();
  const secret = text(form, 'webhook_secret');
  const errors: WebhookErrors = {};
  const url = rawUrl === '' ? null : httpUrl(rawUrl);
  if (rawUrl !== '' && url === null) errors.url = t.errUrl;
  if (secret.length > 200) errors.secret = t.errSecret;
  const rawAttempts = text(form, 'webhook_attempts').trim();
  const attempts = /^\d{1,2}$/.test(rawAttempts) ? Number(rawAttempts) : rawAttempts === '' ? null : 0;
  if (attempts !== null && (attempts < 1 || attempts > 50)) errors.attempts = t.errAttempts;
  if (Object.keys(errors).length > 0) return { errors, url: rawUrl, attempts: rawAttempts };
  const chosen = list(form, 'webhook_events').filter((e): e is SelectableWebhookEvent =>
    (SELECTABLE_WEBHOOK_EVENTS as readonly string[]).includes(e),
  );
  const patch: Partial<KeySettings> = {
    webhookUrl: url,
    webhookEvents: chosen.length === SELECTABLE_WEBHOOK_EVENTS.length ? null : chosen,
  };
  if (attempts !== null) patch.webhookAttempts = attempts;
  if (secret !== '') patch.webhookSecret = secret;
  else if (ticked(form, 'remove_secret')) patch.webhookSecret = null;
  return { ok: patch };
}

type RedeliverParams = { Params: { id: string; event: string } };

/** Shows the key's page again with the webhook form's errors (key-detail's page). */
export type WebhookErrorPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  id: number,
  webhook: { errors: WebhookErrors; url: string; attempts: string },
) => Promise<FastifyReply>;

export function webhookRoutes(app: FastifyInstance, deps: PanelDeps, errorPage: WebhookErrorPage): void {
  app.post<IdParams>('/keys/:id/webhook', async (request, reply) => {
    const id = idOf(request.params.id);
    const accountId = accountIdOf(request.panel);
    await deps.account.key(accountId, id);
    const read = readWebhookForm(request.body, request.panel.lang);
    if ('errors' in read)
      return errorPage(request, reply, id, { errors: read.errors, url: read.url, attempts: read.attempts });
    await deps.account.updateKey(accountId, id, read.ok);
    await audited(request, deps, {
      action: 'webhook.update',
      object: { type: 'key', id },
      detail: { url_set: read.ok.webhookUrl !== null && read.ok.webhookUrl !== undefined },
    });
    return reply.redirect(`/panel/keys/${id}?webhook=saved#webhook-heading`, 303);
  });

  app.post<IdParams>('/keys/:id/webhook/test', async (request, reply) => {
    const id = idOf(request.params.id);
    try {
      const delivery = await deps.account.testWebhook(accountIdOf(request.panel), id);
      await audited(request, deps, { action: 'webhook.test', object: { type: 'key', id } });
      return reply.redirect(`/panel/keys/${id}?webhook=test&event=${delivery.id}#webhook-heading`, 303);
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      return reply.redirect(`/panel/keys/${id}?webhook=no-url#webhook-heading`, 303);
    }
  });

  app.post<RedeliverParams>('/keys/:id/webhook/deliveries/:event/redeliver', async (request, reply) => {
    const id = idOf(request.params.id);
    const event = idOf(request.params.event);
    try {
      const delivery = await deps.account.redeliver(accountIdOf(request.panel), id, event);
      await audited(request, deps, { action: 'webhook.redeliver', object: { type: 'key', id }, detail: { event } });
      const outcome = delivery.attempts[delivery.attempts.length - 1];
      const ok =
        outcome?.http_status !== null &&
        outcome?.http_status !== undefined &&
        outcome.http_status >= 200 &&
        outcome.http_status < 300;
      return reply.redirect(
        `/panel/keys/${id}?webhook=${ok ? 'redelivered' : 'redeliver-failed'}#webhook-heading`,
        303,
      );
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      return reply.redirect(`/panel/keys/${id}?webhook=busy#webhook-heading`, 303);
    }
  });
}
