/**
 * Provider commands about webhooks: test a key's webhook, list its recent deliveries,
 * deliver an event again. Each prints delivery records, never the webhook secret. A key or
 * an event that is not there is ADM-NOT-FOUND; a key with no webhook URL, or an event with an
 * attempt in flight, ADM-REFUSED.
 */
import type { Clock } from '../ports/clock.js';
import type { AttemptLog, ClaimedEvent, EventRecord } from '../ports/event-store.js';
import type { Store } from '../ports/store.js';
import type { WebhookDelivery } from './webhook-delivery.js';
import type { ApiKey } from '../ports/keys.js';
import { ok } from '../domain/result.js';
import { notFound, refused } from './admin-result.js';
import type { AdminResult } from './admin-result.js';

export interface AttemptView {
  attempt: number;
  manual: boolean;
  at: string;
  url: string | null;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryView {
  id: number;
  event_id: string;
  event_type: string;
  key_id: number;
  sms_id: number | null;
  status: string | null;
  state: EventRecord['state'];
  created_at: string;
  /** When the next automatic attempt is due; null unless the event is pending. */
  next_attempt_at: string | null;
  done_at: string | null;
  attempts: AttemptView[];
}

const iso = (t: number): string => new Date(t).toISOString();

function attemptView(a: AttemptLog): AttemptView {
  return {
    attempt: a.attemptNo,
    manual: a.manual,
    at: iso(a.startedAt),
    url: a.url,
    http_status: a.httpStatus,
    error: a.error,
    duration_ms: a.durationMs,
  };
}

export function deliveryView(e: EventRecord): DeliveryView {
  return {
    id: e.id,
    event_id: e.eventId,
    event_type: e.eventType,
    key_id: e.keyId,
    sms_id: e.smsId,
    status: e.status,
    state: e.state,
    created_at: iso(e.createdAt),
    next_attempt_at: e.state === 'pending' ? iso(e.nextAttemptAt) : null,
    done_at: e.doneAt === null ? null : iso(e.doneAt),
    attempts: e.log.map(attemptView),
  };
}

/** `--event` takes the row number or the event_id receivers see. */
export function eventRef(raw: string): number | string {
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

export class WebhookAdmin {
  constructor(
    private readonly store: Store,
    private readonly delivery: WebhookDelivery,
    private readonly clock: Clock,
  ) {}

  private async keyWithWebhook(id: number): Promise<AdminResult<ApiKey>> {
    const key = await this.store.keys.getKey(id);
    if (!key) return notFound(`no key with id ${id}`);
    if (key.webhookUrl === null || key.webhookUrl === '')
      return refused(`key ${id} has no webhook URL (set one with key update --webhook-url)`);
    return ok(key);
  }

  /** The same commands on another store (a transaction's): claims made there commit with it. */
  on(store: Store): WebhookAdmin {
    return new WebhookAdmin(store, this.delivery, this.clock);
  }

  /**
   * Attempts a claimed event now and records the attempt; returns the event as stored. An
   * HTTP call: made outside any transaction, after the claim is committed.
   */
  async attempt(event: ClaimedEvent, manual: boolean): Promise<DeliveryView> {
    const result = await this.delivery.attempt(event, manual);
    await this.store.events.recordAttempts([result], this.clock.now());
    const record = await this.store.events.findEvent(event.id);
    if (!record) throw new Error('event vanished after its attempt');
    return deliveryView(record);
  }

  /**
   * A key.test event, attempted once at once. Like any event it has the key's attempts:
   * if this one fails, a running server's webhook courier makes the others on schedule.
   */
  async testWebhook(keyId: number): Promise<AdminResult<DeliveryView>> {
    const claimed = await this.claimTest(keyId);
    return claimed.ok ? ok(await this.attempt(claimed.value, false)) : claimed;
  }

  /** The key.test event of `testWebhook`, made claimed by this process, for `attempt`. */
  async claimTest(keyId: number): Promise<AdminResult<ClaimedEvent>> {
    const key = await this.keyWithWebhook(keyId);
    if (!key.ok) return key;
    const now = this.clock.now();
    return ok(
      await this.store.events.createClaimed(
        { keyId, eventType: 'key.test', smsId: null, status: null },
        now,
        now + this.delivery.leaseMs,
      ),
    );
  }

  async deliveries(keyId: number, limit: number): Promise<AdminResult<{ deliveries: DeliveryView[] }>> {
    if (!(await this.store.keys.getKey(keyId))) return notFound(`no key with id ${keyId}`);
    return ok({ deliveries: (await this.store.events.recentForKey(keyId, limit)).map(deliveryView) });
  }

  /**
   * Every failed event of the key (and of the keys it replaced) created since `since` is
   * pending again, with the key's attempts and schedule from the start, the first attempt
   * due now: a running server's webhook courier delivers them.
   */
  async redeliverFailed(
    keyId: number,
    since: number,
  ): Promise<AdminResult<{ key_id: number; since: string; queued: number }>> {
    const key = await this.keyWithWebhook(keyId);
    if (!key.ok) return key;
    const queued = await this.store.events.requeueFailed(keyId, since, this.clock.now());
    return ok({ key_id: keyId, since: iso(since), queued });
  }

  /**
   * One more attempt of an event, now, whatever its state: delivered on a 2xx; otherwise the
   * event stays as it was (a pending one keeps its schedule and attempts left).
   */
  async redeliver(ref: number | string): Promise<AdminResult<DeliveryView>> {
    const claimed = await this.claimAgain(ref);
    return claimed.ok ? ok(await this.attempt(claimed.value, true)) : claimed;
  }

  /** The event of `redeliver`, claimed by this process (refused while an attempt is in flight), for `attempt`. */
  async claimAgain(ref: number | string): Promise<AdminResult<ClaimedEvent>> {
    const now = this.clock.now();
    const claimed = await this.store.events.claimOne(ref, now, now + this.delivery.leaseMs);
    if (claimed === null) return notFound(`no webhook event ${String(ref)}`);
    if (claimed === 'busy')
      return refused(`an attempt of event ${String(ref)} is in flight; try again when it has finished`);
    return ok(claimed);
  }
}
