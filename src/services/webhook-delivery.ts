/**
 * One delivery attempt of a claimed webhook event: build and sign the body for this
 * moment, send it, and decide what the event becomes. Recording the result is the
 * caller's, so a worker can write many results in one transaction.
 */
import type { Clock } from '../ports/clock.js';
import type { AttemptResult, ClaimedEvent } from '../ports/event-store.js';
import type { AttemptOutcome, WebhookSender } from '../ports/webhook-sender.js';
import { afterAttempt, buildAttempt } from '../domain/webhook.js';
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
    const startedAt = this.clock.now();
    const { url, secret } = event.target;
    const outcome =
      url === null || url === ''
        ? noUrl
        : await this.sender.send({
            url,
            ...buildAttempt(toWebhookEvent(event), startedAt, secret),
            timeoutMs: this.options.timeoutMs,
          });
    const attempt = {
      manual,
      url,
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
    const next = verdict.state === 'pending' ? Math.max(event.dueAt + verdict.delayMs, now) : now;
    return { ...base, state: verdict.state, nextAttemptAt: next };
  }

  close(): void {
    this.sender.close?.();
  }
}
