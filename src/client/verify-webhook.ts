import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyOptions {
  /** How far the event's time may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (default Date.now()): for tests and replays of old logs. */
  now?: number;
}

export type VerifyResult =
  | { ok: true; event: WebhookEventBody }
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

  let event: WebhookEventBody;
  try {
    event = JSON.parse(bytes.toString('utf8')) as WebhookEventBody;
  } catch {
    return { ok: false, reason: 'malformed-body' };
  }
  if (typeof event !== 'object' || event === null || typeof event.timestamp !== 'string')
    return { ok: false, reason: 'malformed-body' };
  const headerTime = header(headers, 'x-service-timestamp');
  if (headerTime !== undefined && headerTime !== event.timestamp) return { ok: false, reason: 'timestamp-mismatch' };
  const at = Date.parse(event.timestamp);
  const tolerance = (options.toleranceSeconds ?? 300) * 1000;
  if (Number.isNaN(at) || Math.abs((options.now ?? Date.now()) - at) > tolerance)
    return { ok: false, reason: 'stale-timestamp' };
  return { ok: true, event };
}
