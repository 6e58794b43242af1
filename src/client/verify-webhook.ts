import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyOptions {
  /** How far the event's time may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (default Date.now()): for tests and replays of old logs. */
  now?: number;
}

/**
 * A verified request: one event (`shape: 'event'`, a key with `--webhook-batch 1`, the
 * default), or a bucket of them (`shape: 'bucket'`, a key with a larger batch). `events`
 * holds the events of either shape in the order sent, so a receiver can handle both alike.
 */
export type VerifyResult =
  | { ok: true; shape: 'event'; event: WebhookEventBody; events: [WebhookEventBody] }
  | { ok: true; shape: 'bucket'; event?: undefined; bucket: WebhookBucketBody; events: WebhookEventBody[] }
  | {
      ok: false;
      reason: 'signature-missing' | 'signature-mismatch' | 'malformed-body' | 'timestamp-mismatch' | 'stale-timestamp';
    };

export interface WebhookEventBody {
  event_type: string;
  event_id: string;
  timestamp: string;
  data: { sms_id: number; status?: 'sent' | 'delivered' | 'failed'; [field: string]: unknown };
  [field: string]: unknown;
}

/** The body a key with `--webhook-batch` above 1 receives: its events together, each as a single request carries it. */
export interface WebhookBucketBody {
  events: WebhookEventBody[];
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a webhook request as docs/webhooks.md says: the `X-Service-Signature` HMAC over the
 * raw body bytes, compared in constant time, then the signed body's `timestamp` (which
 * `X-Service-Timestamp` must equal when sent) within the tolerance. Parse nothing before:
 * the signature covers the bytes exactly as they arrived.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  const signature = header(headers, 'x-service-signature');
  if (signature === undefined || signature === '') return { ok: false, reason: 'signature-missing' };
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`, 'utf8');
  const given = Buffer.from(signature.trim(), 'utf8');
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time the same.
  const same =
    given.length === expected.length ? timingSafeEqual(given, expected) : (timingSafeEqual(expected, expected), false);
  if (!same) return { ok: false, reason: 'signature-mismatch' };

  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed-body' };
  }
  const bucket = isBucket(body) ? body : null;
  const events = bucket ? bucket.events : [body];
  if (!events.every(isEvent)) return { ok: false, reason: 'malformed-body' };
  // Every element of a bucket carries the time of its one attempt: each is checked as a single event's.
  for (const event of events) {
    const refused = timeRefusal(event, header(headers, 'x-service-timestamp'), options);
    if (refused) return { ok: false, reason: refused };
  }
  const [first] = events;
  if (first === undefined) return { ok: false, reason: 'malformed-body' };
  return bucket
    ? { ok: true, shape: 'bucket', bucket: { events }, events }
    : { ok: true, shape: 'event', event: first, events: [first] };
}

function isBucket(body: unknown): body is { events: unknown[] } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { events?: unknown }).events);
}

function isEvent(value: unknown): value is WebhookEventBody {
  return (
    typeof value === 'object' && value !== null && typeof (value as { timestamp?: unknown }).timestamp === 'string'
  );
}

function timeRefusal(
  event: WebhookEventBody,
  headerTime: string | undefined,
  options: VerifyOptions,
): 'timestamp-mismatch' | 'stale-timestamp' | null {
  if (headerTime !== undefined && headerTime !== event.timestamp) return 'timestamp-mismatch';
  const at = Date.parse(event.timestamp);
  const tolerance = (options.toleranceSeconds ?? 300) * 1000;
  if (Number.isNaN(at) || Math.abs((options.now ?? Date.now()) - at) > tolerance) return 'stale-timestamp';
  return null;
}
