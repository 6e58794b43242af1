/**
 * The webhook courier's policy for keys that take buckets (`key --webhook-batch` above 1):
 * their claimed events go out together, up to the key's size in one request, which takes
 * one slot of the destination and of the account like a single event does. A bucket is a
 * way of carrying, not a second courier: the courier claims, starts and records as always,
 * and asks this class how to share the claim and which events of a key make its bucket.
 *
 * - One bucket of a key is in flight at a time, so the key's events reach its receiver in
 *   the order they were made (in a bucket, by id) unless a failed bucket is tried again.
 * - A bucket holds events with the same number of attempts (retries first), so a failed
 *   bucket's events share their next attempt and it is tried again whole.
 * - A bucket of first attempts that is not full waits until its oldest event has waited the
 *   key's wait: its events are given back and the key is left out of claims meanwhile,
 *   looked at again every quarter of the wait (25 ms to 1 s), so a bucket that fills goes at once.
 */
import type { ClaimedEvent } from '../ports/event-store.js';

/** The events of one key claimed in a round, and what becomes of them. */
export interface BucketChoice {
  /** The bucket to send now, in id order; empty when nothing goes. */
  bucket: ClaimedEvent[];
  /** Events given back: another bucket's, or waiting for more. */
  refused: ClaimedEvent[];
}

const recheckMs = (waitMs: number): number => Math.min(1_000, Math.max(25, Math.floor(waitMs / 4)));

export class WebhookBuckets {
  /** Keys seen taking buckets, and their size: the claim counts their slots so (ClaimShare.bucketSizes). */
  readonly sizes = new Map<number, number>();
  private readonly onWire = new Set<number>();
  /** Keys left out of claims until a time: a bucket waits for more events. */
  private readonly holds = new Map<number, number>();
  /** When the waiting bucket of a key goes, full or not. */
  private readonly deadlines = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  /** `wake`: called when a held key may be claimed again. */
  constructor(private readonly wake: () => void) {}

  /** Whether the event's key takes buckets; learns its size (or that it no longer does). */
  takes(event: ClaimedEvent): boolean {
    const size = event.target.batch ?? 1;
    if (size > 1) {
      if (this.sizes.get(event.keyId) !== size) this.sizes.set(event.keyId, size);
      return true;
    }
    if (this.sizes.has(event.keyId)) {
      this.sizes.delete(event.keyId);
      this.holds.delete(event.keyId);
      this.deadlines.delete(event.keyId);
    }
    return false;
  }

  /** Limits the claim (in slots) of the keys that take buckets: one bucket, none while one is in flight or waits. */
  share(keyLimits: Map<number, number>, perKey: number, now: number): void {
    for (const keyId of this.sizes.keys()) {
      const until = this.holds.get(keyId);
      if (until !== undefined && until <= now) this.holds.delete(keyId);
      const out = this.onWire.has(keyId) || (until !== undefined && until > now);
      keyLimits.set(keyId, out ? 0 : Math.min(1, keyLimits.get(keyId) ?? perKey));
    }
    this.arm(now);
  }

  /** The bucket of one key's claimed events (in id order), and the events given back. */
  choose(keyId: number, events: readonly ClaimedEvent[], now: number): BucketChoice {
    if (this.onWire.has(keyId)) return { bucket: [], refused: [...events] };
    const attempts = Math.max(...events.map((e) => e.attempts));
    const size = this.sizes.get(keyId) ?? 1;
    const bucket: ClaimedEvent[] = [];
    const refused: ClaimedEvent[] = [];
    for (const e of events) (e.attempts === attempts && bucket.length < size ? bucket : refused).push(e);
    const waitMs = bucket[0]?.target.batchWaitMs ?? 0;
    if (attempts === 0 && bucket.length < size && waitMs > 0) {
      const deadline = this.deadlines.get(keyId) ?? Math.min(...bucket.map((e) => e.dueAt)) + waitMs;
      if (now < deadline) {
        this.deadlines.set(keyId, deadline);
        this.holds.set(keyId, Math.min(deadline, now + recheckMs(waitMs)));
        this.arm(now);
        return { bucket: [], refused: [...bucket, ...refused] };
      }
    }
    if (attempts === 0) this.deadlines.delete(keyId);
    return { bucket, refused };
  }

  /**
   * Starts the bucket of each key (choose) with `start`, which says whether it had room; the
   * events that do not go are added to `refused`. Returns how many buckets started.
   */
  start(
    byKey: ReadonlyMap<number, ClaimedEvent[]>,
    now: number,
    refused: ClaimedEvent[],
    start: (first: ClaimedEvent, bucket: ClaimedEvent[]) => boolean,
  ): number {
    let started = 0;
    for (const [keyId, events] of byKey) {
      const choice = this.choose(keyId, events, now);
      refused.push(...choice.refused);
      const first = choice.bucket[0];
      if (first === undefined) continue;
      if (start(first, choice.bucket)) started += 1;
      else refused.push(...choice.bucket);
    }
    return started;
  }

  started(keyId: number): void {
    this.onWire.add(keyId);
  }

  /** A bucket of the key has its outcome: the key may be claimed again. */
  finished(keyId: number): void {
    this.onWire.delete(keyId);
    this.wake();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  /** A timer for the earliest hold's end: the courier claims for that key then. */
  private arm(now: number): void {
    let until = Infinity;
    for (const at of this.holds.values()) until = Math.min(until, at);
    if (until >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = until;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.wake();
      },
      Math.max(0, until - now),
    );
    this.timer.unref();
  }
}
