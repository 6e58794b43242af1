/**
 * One delivery attempt of a claimed webhook event: build and sign the body for this
 * moment, send it, and decide what the event becomes. Recording the result is the
 * caller's, so a worker can write many results in one transaction.
 */
import type { Clock } from '../ports/clock.js';
import type { AttemptResult, ClaimedEvent } from '../ports/event-store.js';
import type { AttemptOutcome, WebhookSender } from '../ports/webhook-sender.js';
import { afterAttempt, buildAttempt } from '../domain/webhook.js';
import { buildBucketAttempt } from '../domain/webhook-bucket.js';
import type { BackoffOptions, WebhookEvent } from '../domain/webhook.js';

export interface WebhookDeliveryOptions {
  /** Bounds one attempt from name lookup to response headers. */
  timeoutMs: number;
  /** Server-wide: the scale of every schedule (the key's schedule comes with its event). */
  backoff: Pick<BackoffOptions, 'scale'>;
  /** The jitter's randomness, [0, 1). */
  random?: () => number;
}

/** How long a claim holds an event: its attempt's timeout plus time to record the outcome. */
export function leaseFor(timeoutMs: number): number {
  return timeoutMs + 5_000;
}

function toWebhookEvent(e: ClaimedEvent): WebhookEvent {
  return {
    eventId: e.eventId,
    eventType: e.eventType,
    ...(e.smsId !== null ? { smsId: e.smsId } : {}),
    ...(e.status !== null ? { status: e.status } : {}),
    ...(e.extra !== null ? { extra: e.extra } : {}),
  };
}

const noUrl: AttemptOutcome = { ok: false, status: null, error: 'no webhook URL configured', durationMs: 0 };

export class WebhookDelivery {
  private readonly random: () => number;

  constructor(
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    readonly options: WebhookDeliveryOptions,
  ) {
    this.random = options.random ?? Math.random;
  }

  get leaseMs(): number {
    return leaseFor(this.options.timeoutMs);
  }

  /**
   * Attempts the event once. An automatic attempt counts against the key's attempts and
   * schedules the next one; a manual one (redelivery) only delivers or leaves the event as
   * it was, its schedule included. Never throws for a failed attempt.
   */
  async attempt(event: ClaimedEvent, manual: boolean): Promise<AttemptResult> {
    // A key that takes buckets gets every request as a bucket, a lone event too (key.test, redelivery).
    if ((event.target.batch ?? 1) > 1) {
      const [result] = await this.attemptBucket([event], manual);
      if (result === undefined) throw new Error('a bucket of one event gave no result');
      return result;
    }
    const startedAt = this.clock.now();
    const outcome = await this.post(event.target, (secret) => buildAttempt(toWebhookEvent(event), startedAt, secret));
    return this.verdict(event, manual, startedAt, outcome, event.dueAt);
  }

  /**
   * Attempts the events of one key together: one request whose body is the bucket
   * `{"events": [...]}` in the order given, signed once. They share the outcome, and a
   * failed bucket's events share their next attempt (counted from the latest due time among
   * them), so it is tried again whole on the key's schedule. The events must share their
   * target and their count of attempts (the courier makes buckets so).
   */
  async attemptBucket(events: readonly ClaimedEvent[], manual = false): Promise<AttemptResult[]> {
    const first = events[0];
    if (first === undefined) return [];
    const startedAt = this.clock.now();
    const outcome = await this.post(first.target, (secret) =>
      buildBucketAttempt(events.map(toWebhookEvent), startedAt, secret),
    );
    let dueAt = first.dueAt;
    for (const e of events) dueAt = Math.max(dueAt, e.dueAt);
    const one = this.verdict(first, manual, startedAt, outcome, dueAt);
    return events.map((e) => ({
      ...one,
      id: e.id,
      leaseUntil: e.leaseUntil,
      ...(manual ? { state: outcome.ok ? 'delivered' : e.state, nextAttemptAt: e.dueAt } : {}),
    }));
  }

  /** Sends the request `signed` makes (its body and headers, signed with the key's secret) to the key's URL. */
  private async post(
    target: ClaimedEvent['target'],
    signed: (secret: string | null) => { body: string; headers: Record<string, string> },
  ): Promise<AttemptOutcome> {
    const { url, secret } = target;
    if (url === null || url === '') return noUrl;
    return this.sender.send({ url, ...signed(secret), timeoutMs: this.options.timeoutMs });
  }

  /** What one attempt leaves the event in; `dueAt`: when the attempt was due. */
  private verdict(
    event: ClaimedEvent,
    manual: boolean,
    startedAt: number,
    outcome: AttemptOutcome,
    dueAt: number,
  ): AttemptResult {
    const attempt = {
      manual,
      url: event.target.url,
      startedAt,
      durationMs: outcome.durationMs,
      httpStatus: outcome.status,
      error: outcome.error,
    };
    const base = { id: event.id, leaseUntil: event.leaseUntil, attempt };
    if (manual) return { ...base, state: outcome.ok ? 'delivered' : event.state, nextAttemptAt: event.dueAt };
    const backoff = { scale: this.options.backoff.scale, scheduleMs: event.target.retryScheduleMs };
    const verdict = afterAttempt(outcome.ok, event.attempts + 1, event.target.maxAttempts, this.random, backoff);
    const now = this.clock.now();
    // The schedule counts from when the attempt was due, not from when it happened to run
    // (a claim's wait or a destination's pause would stretch every later step), never in the past.
    const next = verdict.state === 'pending' ? Math.max(dueAt + verdict.delayMs, now) : now;
    return { ...base, state: verdict.state, nextAttemptAt: next };
  }

  close(): void {
    this.sender.close?.();
  }
}
