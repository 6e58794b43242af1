/** A key's webhook: reading its form, and the routes that save it, send a test event and deliver an event again. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDoor } from '../door.js';
import { field, httpUrl, idOf, list, ticked } from '../../kit/forms.js';
import type { Lang } from '../../catalogue.js';
import { webhookMessages } from './webhook-catalogue.js';
import { SELECTABLE_WEBHOOK_EVENTS } from '../../../domain/webhook.js';
import { MAX_WEBHOOK_BATCH, MAX_WEBHOOK_BATCH_WAIT_MS, MIN_WEBHOOK_BATCH } from '../../../domain/webhook-bucket.js';
import type { SelectableWebhookEvent } from '../../../domain/webhook.js';
import type { KeySettings } from '../../../ports/keys.js';
import { found, orRefused } from '../../kit/not-found.js';
import type { PostedWebhook, WebhookErrors } from './webhook-section.js';

/** A whole number from `min` to `max`; null when left empty (unchanged), false when not one. */
function wholeIn(raw: string, min: number, max: number): number | null | false {
  if (raw === '') return null;
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  return n >= min && n <= max ? n : false;
}

export function readWebhookForm(form: unknown, lang: Lang): { ok: Partial<KeySettings> } | PostedWebhook {
  const t = webhookMessages[lang];
  const rawUrl = field(form, 'webhook_url').trim();
  const secret = field(form, 'webhook_secret');
  const errors: WebhookErrors = {};
  const url = rawUrl === '' ? null : httpUrl(rawUrl);
  if (rawUrl !== '' && url === null) errors.url = t.errUrl;
  if (secret.length > 200) errors.secret = t.errSecret;
  const rawAttempts = field(form, 'webhook_attempts').trim();
  const attempts = /^\d{1,2}$/.test(rawAttempts) ? Number(rawAttempts) : rawAttempts === '' ? null : 0;
  if (attempts !== null && (attempts < 1 || attempts > 50)) errors.attempts = t.errAttempts;
  const rawBatch = field(form, 'webhook_batch').trim();
  const batch = wholeIn(rawBatch, MIN_WEBHOOK_BATCH, MAX_WEBHOOK_BATCH);
  if (batch === false) errors.batch = t.errBatch;
  const rawBatchWait = field(form, 'webhook_batch_wait_ms').trim();
  const batchWait = wholeIn(rawBatchWait, 0, MAX_WEBHOOK_BATCH_WAIT_MS);
  if (batchWait === false) errors.batchWait = t.errBatchWait;
  if (Object.keys(errors).length > 0)
    return { errors, url: rawUrl, attempts: rawAttempts, batch: rawBatch, batchWait: rawBatchWait };
  const chosen = list(form, 'webhook_events').filter((e): e is SelectableWebhookEvent =>
    (SELECTABLE_WEBHOOK_EVENTS as readonly string[]).includes(e),
  );
  const patch: Partial<KeySettings> = {
    webhookUrl: url,
    webhookEvents: chosen.length === SELECTABLE_WEBHOOK_EVENTS.length ? null : chosen,
  };
  if (attempts !== null) patch.webhookAttempts = attempts;
  if (typeof batch === 'number') patch.webhookBatch = batch;
  if (typeof batchWait === 'number') patch.webhookBatchWaitMs = batchWait;
  if (secret !== '') patch.webhookSecret = secret;
  else if (ticked(form, 'remove_secret')) patch.webhookSecret = null;
  return { ok: patch };
}

type IdParams = { Params: { id: string } };
type RedeliverParams = { Params: { id: string; event: string } };

/** Shows the key's page again with the webhook form as posted and its errors (key-page.tsx). */
export type WebhookErrorPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  id: number,
  posted: PostedWebhook,
) => Promise<FastifyReply>;

const section = (id: number, query: string): string => `/panel/keys/${id}?${query}#webhook-heading`;

export function webhookRoutes(app: FastifyInstance, door: AccountDoor, errorPage: WebhookErrorPage): void {
  app.post<IdParams>('/keys/:id/webhook', async (request, reply) => {
    const id = idOf(request.params.id);
    const keys = door.of(request).keys;
    await found(keys.get(id));
    const read = readWebhookForm(request.body, request.panel.lang);
    if ('errors' in read) return errorPage(request, reply, id, read);
    const saved = await orRefused(keys.updateWebhook(id, read.ok));
    if (!saved.ok) return reply.redirect(section(id, 'webhook=refused'), 303);
    return reply.redirect(section(id, 'webhook=saved'), 303);
  });

  app.post<IdParams>('/keys/:id/webhook/test', async (request, reply) => {
    const id = idOf(request.params.id);
    const delivery = await orRefused(door.of(request).keys.testWebhook(id));
    if (!delivery.ok) return reply.redirect(section(id, 'webhook=no-url'), 303);
    return reply.redirect(section(id, `webhook=test&event=${delivery.value.id}`), 303);
  });

  app.post<RedeliverParams>('/keys/:id/webhook/deliveries/:event/redeliver', async (request, reply) => {
    const id = idOf(request.params.id);
    const event = idOf(request.params.event);
    const delivery = await orRefused(door.of(request).keys.redeliver(id, event));
    if (!delivery.ok) return reply.redirect(section(id, 'webhook=busy'), 303);
    const { attempts } = delivery.value;
    const status = attempts[attempts.length - 1]?.http_status ?? null;
    const ok = status !== null && status >= 200 && status < 300;
    return reply.redirect(section(id, `webhook=${ok ? 'redelivered' : 'redeliver-failed'}`), 303);
  });
}
