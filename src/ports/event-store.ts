/**
 * Webhook events in the store: an outbox written in the transaction of the state change
 * that causes each event, claimed by webhook couriers with a lease, every attempt kept.
 */
import type { SelectableWebhookEvent, WebhookEventType, WebhookStatus } from '../domain/webhook.js';

export type EventState = 'pending' | 'delivered' | 'failed';

/**
 * Where an event goes at the moment of an attempt: the webhook of the key that sent the
 * message, or of the key that replaced it by rotation (settings move to the new key).
 */
export interface WebhookTarget {
  /** The key whose settings are used (the end of the rotation chain). */
  keyId: number;
  url: string | null;
  secret: string | null;
  maxAttempts: number;
  /** The key's account (absent when the key is gone): the courier shares its slots across accounts too. */
  accountId?: number;
  /** The key's delays between attempts; null: the default schedule. */
  retryScheduleMs: readonly number[] | null;
  /** The events the key's webhook takes (null: all); applied when events are created. */
  events: readonly SelectableWebhookEvent[] | null;
  /** Events one request carries at most (absent or 1: one event a request, as a single body). */
  batch?: number;
  /** How long a bucket that is not full waits for more first attempts, in milliseconds. */
  batchWaitMs?: number;
}

export interface NewEvent {
  keyId: number;
  eventType: WebhookEventType;
  smsId: number | null;
  status: WebhookStatus | null;
  /** Additive fields of the payload's `data` (sms.received carries the message). */
  extra?: Record<string, unknown>;
}

/** What a stored event is, claimed or read. */
export interface StoredEvent {
  id: number;
  eventId: string;
  keyId: number;
  eventType: WebhookEventType;
  smsId: number | null;
  status: WebhookStatus | null;
  extra: Record<string, unknown> | null;
  state: EventState;
  /** Automatic attempts made (before the claim, for a claimed event). */
  attempts: number;
}

/** An event its claimer may attempt until `leaseUntil`; only it can record the outcome. */
export interface ClaimedEvent extends StoredEvent {
  /** When the next automatic attempt was due before this claim (kept by manual attempts). */
  dueAt: number;
  leaseUntil: number;
  target: WebhookTarget;
}

export interface AttemptLog {
  attemptNo: number;
  manual: boolean;
  url: string | null;
  startedAt: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

/** One finished attempt and what it leaves the event in. */
export interface AttemptResult {
  id: number;
  leaseUntil: number;
  /** Numbered by the store, after the event's earlier attempts. */
  attempt: Omit<AttemptLog, 'attemptNo'>;
  /** The event afterwards; `nextAttemptAt` matters only while pending. */
  state: EventState;
  nextAttemptAt: number;
}

export interface EventRecord extends StoredEvent {
  nextAttemptAt: number;
  createdAt: number;
  doneAt: number | null;
  log: AttemptLog[];
}

/**
 * How a claim shares slots among keys (the worker maps keys to destinations): at most
 * `perKey` events of one key, taken round-robin across keys, unless `keyLimits` gives a
 * key another number (0: none of its events).
 */
export interface ClaimShare {
  perKey: number;
  keyLimits: ReadonlyMap<number, number>;
  /** Keys whose events' first attempts wait (their destination is paused); their retries do not. */
  heldKeys?: ReadonlySet<number>;
  /** Keys that take buckets and their size: each of their slots is up to that many events. */
  bucketSizes?: ReadonlyMap<number, number>;
}

export interface EventStore {
  /** Adds a pending event, due now, on this store's executor (call inside the causing transaction). */
  createPending(event: NewEvent, now: number): Promise<void>;
  /** Adds an event already claimed by the caller (key.test: attempted at once). */
  createClaimed(event: NewEvent, now: number, leaseUntil: number): Promise<ClaimedEvent>;
  /** Claims due pending events; several workers never claim one event at once. */
  claimDue(now: number, limit: number, leaseUntil: number, share?: ClaimShare): Promise<ClaimedEvent[]>;
  /** Gives claimed events back unattempted, due now (where the claim still holds them). */
  release(events: readonly Pick<ClaimedEvent, 'id' | 'leaseUntil'>[], now: number): Promise<void>;
  /** Claims one event whatever its state, unless an attempt of it is in flight ('busy'). */
  claimOne(ref: number | string, now: number, leaseUntil: number): Promise<ClaimedEvent | 'busy' | null>;
  /** Records attempts in one transaction; an outcome whose lease was lost keeps only its log. */
  recordAttempts(results: readonly AttemptResult[], now: number): Promise<void>;
  /**
   * Makes the failed events of a key, and of the keys it replaced, created at or after
   * `since`, pending again with a fresh set of automatic attempts, the first due now.
   * Events an attempt is in flight for are left alone. Returns how many were requeued.
   */
  requeueFailed(keyId: number, since: number, now: number): Promise<number>;
  findEvent(ref: number | string): Promise<EventRecord | null>;
  /** The key's most recent events, newest first, with their attempts. */
  recentForKey(keyId: number, limit: number): Promise<EventRecord[]>;
}
