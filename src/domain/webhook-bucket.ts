/**
 * Webhook buckets (docs/webhooks.md, "Buckets"): a key's events carried together, up to its
 * bucket size in one request. Pure, like webhook.ts, whose single body each element is.
 */
import { buildPayload, headersFor, webhookTimestamp } from './webhook.js';
import type { WebhookEvent } from './webhook.js';

/** A key's bucket size (`--webhook-batch`): 1, the default, posts each event alone. */
export const MIN_WEBHOOK_BATCH = 1;
export const MAX_WEBHOOK_BATCH = 100;
/** The longest a bucket that is not full waits for more events (`--webhook-batch-wait-ms`). */
export const MAX_WEBHOOK_BATCH_WAIT_MS = 60_000;

/**
 * Body and headers of one attempt of a bucket: `{"events": [...]}`, each element the event
 * exactly as a single delivery carries it (buildPayload), in the order given, all with the
 * time of this attempt; signed once over the whole body, as a single event is.
 */
export function buildBucketAttempt(
  events: readonly WebhookEvent[],
  attemptTime: number,
  secret: string | null,
): { body: string; headers: Record<string, string> } {
  const body = `{"events":[${events.map((e) => buildPayload(e, attemptTime)).join(',')}]}`;
  return { body, headers: headersFor(body, webhookTimestamp(attemptTime), secret) };
}
