/**
 * Webhook events as the receiver sees them (spec, Events): the JSON body, its signature,
 * its headers, and when a failed attempt is tried again. Pure: the attempt time and the
 * randomness of the backoff jitter come in as parameters.
 */
// node:crypto is used only for HMAC, a pure computation with no I/O, so it is allowed here.
import { createHmac } from 'node:crypto';

export type WebhookEventType =
  | 'sms.sent'
  | 'sms.delivered'
  | 'sms.failed'
  | 'sms.cancelled'
  | 'otp.verified'
  | 'key.test'
  | 'sms.received'
  | 'sms.clicked';

/**
 * The events a key's webhook can be limited to (`haberci admin key ... --webhook-events`).
 * Which webhook receives an event is "not shown" in the spec; by default a key's webhook
 * receives every event, as its rule 6 says. key.test is sent only when asked for, so it is
 * always sent; otp.verified, made when /otp/verify accepts a code, goes to every webhook
 * with a URL (docs/decisions.md, "One-time passwords").
 */
export const SELECTABLE_WEBHOOK_EVENTS = [
  'sms.sent',
  'sms.delivered',
  'sms.failed',
  'sms.cancelled',
  'sms.received',
  'sms.clicked',
] as const;
export type SelectableWebhookEvent = (typeof SELECTABLE_WEBHOOK_EVENTS)[number];

/**
 * A comma-separated list of event types, or `all` (null: every event). Returns the list in
 * the canonical order without repeats, or the first name that is not a selectable event.
 */
export function parseWebhookEventList(raw: string): { events: SelectableWebhookEvent[] | null } | { unknown: string } {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 1 && names[0] === 'all') return { events: null };
  const chosen = new Set<string>();
  for (const name of names) {
    if (!(SELECTABLE_WEBHOOK_EVENTS as readonly string[]).includes(name)) return { unknown: name };
    chosen.add(name);
  }
  if (chosen.size === 0) return { unknown: raw.trim() };
  return { events: SELECTABLE_WEBHOOK_EVENTS.filter((name) => chosen.has(name)) };
}

/** As stored: comma-separated in the canonical order, null for every event. */
export function webhookEventsToText(events: readonly SelectableWebhookEvent[] | null): string | null {
  return events === null ? null : events.join(',');
}

/** From the stored text; names this version does not know are left out. */
export function webhookEventsFromText(text: string | null): SelectableWebhookEvent[] | null {
  if (text === null) return null;
  const names = text.split(',');
  return SELECTABLE_WEBHOOK_EVENTS.filter((name) => names.includes(name));
}

/** Whether a webhook limited to `events` (null: all) takes events of this type. */
export function takesEvent(events: readonly SelectableWebhookEvent[] | null, type: WebhookEventType): boolean {
  if (events === null || type === 'key.test') return true;
  return (events as readonly string[]).includes(type);
}

/** `data.status` of the spec. */
export type WebhookStatus = 'sent' | 'delivered' | 'failed' | 'cancelled';

export interface WebhookEvent {
  /** Stable across every attempt of one event, so receivers can drop duplicates. */
  eventId: string;
  eventType: WebhookEventType;
  /** Our message id. Absent only for key.test, which concerns no message (sent as 0). */
  smsId?: number;
  /** Used for event types that do not name a status themselves (otp.verified). */
  status?: WebhookStatus;
  /** Additive fields of `data` (for example the inbound text of sms.received). */
  extra?: Readonly<Record<string, unknown>>;
}

/** The spec's default number of attempts (first try included). */
export const DEFAULT_WEBHOOK_ATTEMPTS = 5;

export const WEBHOOK_USER_AGENT = 'haberci-webhooks/1';

const impliedStatus: Partial<Record<WebhookEventType, WebhookStatus>> = {
  'sms.sent': 'sent',
  'sms.delivered': 'delivered',
  'sms.failed': 'failed',
  'sms.cancelled': 'cancelled',
};

/** ISO 8601 in UTC with milliseconds, the form of both `timestamp` and X-Service-Timestamp. */
export function webhookTimestamp(attemptTime: number): string {
  return new Date(attemptTime).toISOString();
}

/**
 * The exact JSON body of one attempt. The timestamp is the time of this attempt, so the
 * body is rebuilt for every attempt and a receiver's freshness check covers signed data;
 * `event_id` stays the same across attempts.
 *
 * Invariants: for sms.* events `data.status` always agrees with `event_type` (the event
 * type wins over a conflicting `status`); key.test never carries a status; `sms_id` is
 * always an integer (the spec lists it without an "absent" case), 0 when no message is
 * concerned; `extra` cannot replace `sms_id` or `status`.
 */
export function buildPayload(event: WebhookEvent, attemptTime: number): string {
  const smsId = event.smsId ?? 0;
  if (!Number.isSafeInteger(smsId)) throw new RangeError(`sms_id must be an integer, got ${smsId}`);
  const status = event.eventType === 'key.test' ? undefined : (impliedStatus[event.eventType] ?? event.status);
  const data: Record<string, unknown> = { ...event.extra, sms_id: smsId };
  if (status === undefined) delete data.status;
  else data.status = status;
  return JSON.stringify({
    event_type: event.eventType,
    event_id: event.eventId,
    timestamp: webhookTimestamp(attemptTime),
    data,
  });
}

/** `sha256=<lowercase hex HMAC-SHA256 of the raw UTF-8 body, keyed with the secret>`. */
export function sign(body: string, secret: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** An empty secret counts as no secret, as in the key settings (`webhook_secret_set`). */
export function hasSecret(secret: string | null): secret is string {
  return secret !== null && secret !== '';
}

/**
 * Request headers of one attempt. `timestamp` must be the body's `timestamp`: the header
 * is not signed on its own, so receivers are told to trust the (signed) body's copy.
 */
export function headersFor(body: string, timestamp: string, secret: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Service-Timestamp': timestamp,
  };
  if (hasSecret(secret)) headers['X-Service-Signature'] = sign(body, secret);
  return headers;
}

/** Body and headers of one attempt, built together so the two timestamps cannot differ. */
export function buildAttempt(
  event: WebhookEvent,
  attemptTime: number,
  secret: string | null,
): { body: string; headers: Record<string, string> } {
  const body = buildPayload(event, attemptTime);
  return { body, headers: headersFor(body, webhookTimestamp(attemptTime), secret) };
}

/**
 * The default delays between attempts: 1 min, 10 min, 1 h, 6 h, so the default 5 attempts
 * span about 7 hours and a receiver that is down for minutes or a few hours still gets its
 * events. A key with more attempts repeats the last delay (6 h each).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [60_000, 600_000, 3_600_000, 21_600_000];

/** The first delay of the default schedule: `--webhook-retry-base-ms` scales schedules against it. */
export const DEFAULT_RETRY_BASE_MS = 60_000;

/** Each delay is its nominal value ± this fraction, at random. */
export const RETRY_JITTER = 0.2;

/** The longest delay one step of a schedule may have (a week). */
export const MAX_RETRY_STEP_MS = 7 * 24 * 3_600_000;

export interface BackoffOptions {
  /** Nominal delays after failed attempt 1, 2, ...; the last one repeats. Default: DEFAULT_RETRY_SCHEDULE_MS. */
  scheduleMs?: readonly number[] | null;
  /**
   * Multiplies every delay. The server's `--webhook-retry-base-ms` divided by the default
   * first delay: 1 in production; tests and trials make the whole schedule fast with it.
   */
  scale?: number;
}

/** The scale of every schedule for a server whose default schedule starts at `baseMs`. */
export function retryScale(baseMs: number): number {
  return baseMs / DEFAULT_RETRY_BASE_MS;
}

/** Nominal (un-jittered) delay after failed attempt number `attemptNumber` (1-based). */
function nominalDelay(attemptNumber: number, options: BackoffOptions): number {
  const schedule = options.scheduleMs && options.scheduleMs.length > 0 ? options.scheduleMs : DEFAULT_RETRY_SCHEDULE_MS;
  const step = schedule[Math.min(Math.max(attemptNumber, 1), schedule.length) - 1] ?? DEFAULT_RETRY_BASE_MS;
  return step * (options.scale ?? 1);
}

/**
 * Delay before the next attempt, after attempt `attemptNumber` (1-based) failed: the
 * schedule's step ± 20 % at random, so the retries of many events that failed together
 * (a receiver outage) spread out instead of arriving at once when it recovers, while each
 * retry stays near its documented time. `random` returns [0, 1).
 */
export function nextAttemptDelay(attemptNumber: number, random: () => number, options: BackoffOptions = {}): number {
  const nominal = nominalDelay(attemptNumber, options);
  return Math.floor(nominal * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}

export interface ScheduledRetry {
  /** The attempt this delay leads to (2 for the first retry). */
  attempt: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/** The retry delays of `attempts` attempts in all (first try included), for documentation. */
export function retrySchedule(
  attempts: number = DEFAULT_WEBHOOK_ATTEMPTS,
  options: BackoffOptions = {},
): ScheduledRetry[] {
  const out: ScheduledRetry[] = [];
  for (let failed = 1; failed < attempts; failed++) {
    const nominal = nominalDelay(failed, options);
    out.push({
      attempt: failed + 1,
      minDelayMs: Math.floor(nominal * (1 - RETRY_JITTER)),
      maxDelayMs: Math.floor(nominal * (1 + RETRY_JITTER)),
    });
  }
  return out;
}

const durationUnits: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A key's retry schedule as the provider writes it: delays separated by commas, each a
 * number with a unit (`ms`, `s`, `m`, `h`, `d`), for example `30s,5m,1h`. `default` (null)
 * is the default schedule. Every step is at least 1 s and at most a week.
 */
export function parseRetrySchedule(raw: string): { scheduleMs: number[] | null } | { error: string } {
  const text = raw.trim();
  if (text === 'default') return { scheduleMs: null };
  const steps = text.split(',').map((part) => part.trim());
  if (steps.length > 20) return { error: 'at most 20 delays' };
  const out: number[] = [];
  for (const step of steps) {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(step);
    const ms = match ? Number(match[1]) * (durationUnits[match[2] ?? ''] ?? 0) : NaN;
    if (!(ms >= 1_000 && ms <= MAX_RETRY_STEP_MS))
      return { error: `"${step}" is not a delay from 1s to 7d (a number and a unit: ms, s, m, h, d)` };
    out.push(ms);
  }
  return { scheduleMs: out };
}

/** As stored and shown: delays in milliseconds, comma-separated; null for the default. */
export function retryScheduleToText(scheduleMs: readonly number[] | null): string | null {
  return scheduleMs === null ? null : scheduleMs.join(',');
}

/** From the stored text; anything unreadable is the default schedule. */
export function retryScheduleFromText(text: string | null): number[] | null {
  if (text === null || text === '') return null;
  const steps = text.split(',').map(Number);
  return steps.every((ms) => Number.isSafeInteger(ms) && ms > 0) ? steps : null;
}

export type AttemptVerdict = { state: 'delivered' } | { state: 'pending'; delayMs: number } | { state: 'failed' };

/**
 * What automatic attempt number `attemptNumber` (1-based) leaves its event in: delivered on
 * an acknowledgement; otherwise tried again after the backoff until `maxAttempts` attempts
 * in all have been made, then failed.
 */
export function afterAttempt(
  acknowledged: boolean,
  attemptNumber: number,
  maxAttempts: number,
  random: () => number,
  options: BackoffOptions = {},
): AttemptVerdict {
  if (acknowledged) return { state: 'delivered' };
  if (attemptNumber >= maxAttempts) return { state: 'failed' };
  return { state: 'pending', delayMs: nextAttemptDelay(attemptNumber, random, options) };
}
