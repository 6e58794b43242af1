/**
 * A key's hourly, daily and monthly request counts taken in leases, where processes share a
 * store (PostgreSQL). Counting each request in the store costs a round trip before
 * the request can go on; instead a process counts a block of a key's requests at once (the
 * store admits as many of them as the limits allow, as it would one by one) and hands the
 * places out itself. Requests that arrive while a lease is being taken wait for it; the next
 * lease is at least as large as the queue.
 *
 * What it keeps: every request admitted was counted in the store first, so the cluster never
 * admits more than a limit; a request refused later is given back (to the lease, or to the
 * store once its lease is gone). What it gives up: places leased and not yet used count in
 * the store. They are given back when the key has been idle for `idleMs` (1 s), when its
 * windows or limits change, and at a graceful stop; a process killed keeps at most a lease
 * per key counted. Meanwhile another process may refuse a key close to its limit a little
 * early: a lease is at most 1/20 of the smallest limit (docs/decisions.md, "Cluster").
 */
import type { LimitHit, RequestLimits, UsageRequest, UsageWindows } from '../domain/request-limits.js';
import { MicroBatcher } from '../util/micro-batcher.js';

/** A lease is this share of the key's smallest limit, at least 1 and at most `maxLease`. */
const leaseShare = 1 / 20;
const maxLease = 1000;

/** The store's side: counts requests in order (null: admitted), gives counts back. */
export interface UsageCounts {
  consumeRequests(items: readonly UsageRequest[]): Promise<(LimitHit | null)[]>;
  refundRequest(keyId: number, windows: UsageWindows, count?: number): Promise<void>;
}

export type Counting = { refused: LimitHit } | { undo: () => Promise<void> };

interface Lease {
  limits: RequestLimits;
  windows: UsageWindows;
  /** Places leased and not handed out. */
  left: number;
  lastUsed: number;
  /** While a lease is being taken: the requests waiting for it. */
  waiting: { request: UsageRequest; settle: (c: Counting) => void; fail: (e: unknown) => void }[];
  asking: boolean;
}

interface Ask {
  request: UsageRequest;
  n: number;
}

export function usageLeaseSize(limits: RequestLimits): number {
  const set = [limits.hourly, limits.daily, limits.monthly].filter((l) => l > 0);
  if (set.length === 0) return 1;
  return Math.max(1, Math.min(maxLease, Math.floor(Math.min(...set) * leaseShare)));
}

const sameWindows = (a: UsageWindows, b: UsageWindows): boolean =>
  a.hour === b.hour && a.day === b.day && a.month === b.month;
const sameLimits = (a: RequestLimits, b: RequestLimits): boolean =>
  a.hourly === b.hourly && a.daily === b.daily && a.monthly === b.monthly;

export class UsageLeases {
  private readonly leases = new Map<number, Lease>();
  /** Give-backs in flight, by key. */
  private readonly returning = new Map<number, Promise<void>>();
  /** The asks of one turn counted in one call (one statement on PostgreSQL). */
  private readonly batcher: MicroBatcher<Ask, { granted: number; hit: LimitHit | null }>;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: UsageCounts,
    private readonly now: () => number,
    private readonly idleMs = 1000,
  ) {
    this.batcher = new MicroBatcher((asks: Ask[]) => this.count(asks), 100);
  }

  /** Counts one request: refused with the limit it ran into, or admitted with how to take it back. */
  take(request: UsageRequest): Promise<Counting> {
    let lease = this.leases.get(request.keyId);
    if (
      lease !== undefined &&
      (!sameWindows(lease.windows, request.windows) || !sameLimits(lease.limits, request.limits)) &&
      !lease.asking
    ) {
      this.giveBack(request.keyId, lease);
      lease = undefined;
    }
    if (lease !== undefined && !lease.asking && lease.left > 0) {
      lease.left -= 1;
      lease.lastUsed = this.now();
      return Promise.resolve({ undo: this.undoFor(request) });
    }
    if (lease === undefined) {
      lease = {
        limits: request.limits,
        windows: request.windows,
        left: 0,
        lastUsed: this.now(),
        waiting: [],
        asking: false,
      };
      this.leases.set(request.keyId, lease);
      this.timer ??= setInterval(() => this.giveBackIdle(), this.idleMs).unref();
    }
    const held = lease;
    const answer = new Promise<Counting>((settle, fail) => held.waiting.push({ request, settle, fail }));
    if (!lease.asking) this.ask(request.keyId, lease);
    return answer;
  }

  /** Gives every unused place back to the store (a graceful stop). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const returns: Promise<void>[] = [];
    for (const [keyId, lease] of this.leases)
      if (!lease.asking && lease.left > 0) returns.push(this.refund(keyId, lease.windows, lease.left));
    this.leases.clear();
    await Promise.all([...returns, ...this.returning.values()]);
  }

  private ask(keyId: number, lease: Lease): void {
    lease.asking = true;
    // Waiters that differ in windows or limits (an hour began, a limit changed) wait for the next ask.
    const first = lease.waiting[0]?.request;
    if (first === undefined) {
      lease.asking = false;
      return;
    }
    if (lease.left > 0 && !(sameWindows(lease.windows, first.windows) && sameLimits(lease.limits, first.limits))) {
      this.returned(keyId, this.refund(keyId, lease.windows, lease.left));
      lease.left = 0;
    }
    lease.windows = first.windows;
    lease.limits = first.limits;
    const alike = lease.waiting.filter(
      (w) => sameWindows(w.request.windows, first.windows) && sameLimits(w.request.limits, first.limits),
    ).length;
    const n = Math.max(alike, usageLeaseSize(first.limits));
    // After what this key gave back is in the store: a lease must not count against it.
    const counted = (this.returning.get(keyId) ?? Promise.resolve()).then(() =>
      this.batcher.add({ request: first, n }),
    );
    counted.then(
      ({ granted, hit }) => {
        lease.asking = false;
        lease.left = granted;
        lease.lastUsed = this.now();
        const served: typeof lease.waiting = [];
        const rest: typeof lease.waiting = [];
        for (const w of lease.waiting)
          (sameWindows(w.request.windows, lease.windows) && sameLimits(w.request.limits, lease.limits)
            ? served
            : rest
          ).push(w);
        lease.waiting = rest;
        for (const w of served) {
          if (lease.left > 0) {
            lease.left -= 1;
            w.settle({ undo: this.undoFor(w.request) });
          } else if (hit !== null) {
            w.settle({ refused: hit });
          } else {
            // More arrived than this lease held: they wait for the next.
            lease.waiting.push(w);
          }
        }
        if (lease.waiting.length > 0) this.ask(keyId, lease);
      },
      (error: unknown) => {
        lease.asking = false;
        const waiting = lease.waiting.splice(0);
        this.leases.delete(keyId);
        for (const w of waiting) w.fail(error);
      },
    );
  }

  /** The asks of a turn: each ask's n requests counted in order; granted is how many were admitted. */
  private async count(asks: readonly Ask[]): Promise<{ granted: number; hit: LimitHit | null }[]> {
    // One item per place; the store answers by position.
    const items = asks.flatMap((a) => Array.from({ length: a.n }, () => a.request));
    const hits = await this.store.consumeRequests(items);
    let at = 0;
    return asks.map((a) => {
      const answers = hits.slice(at, (at += a.n));
      // The store admits a key's requests in order until a limit is reached: a prefix.
      const granted = answers.filter((h) => h === null).length;
      return { granted, hit: answers.find((h) => h !== null) ?? null };
    });
  }

  /** A request refused after it was counted gives its place back: to its lease while it lasts, else to the store. */
  private undoFor(request: UsageRequest): () => Promise<void> {
    return () => {
      const lease = this.leases.get(request.keyId);
      if (
        lease !== undefined &&
        !lease.asking &&
        sameWindows(lease.windows, request.windows) &&
        sameLimits(lease.limits, request.limits)
      ) {
        lease.left += 1;
        return Promise.resolve();
      }
      return this.refund(request.keyId, request.windows, 1);
    };
  }

  private giveBackIdle(): void {
    const now = this.now();
    for (const [keyId, lease] of this.leases) {
      if (!lease.asking && lease.waiting.length === 0 && now - lease.lastUsed >= this.idleMs)
        this.giveBack(keyId, lease);
    }
    if (this.leases.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private giveBack(keyId: number, lease: Lease): void {
    this.leases.delete(keyId);
    if (lease.left > 0) this.returned(keyId, this.refund(keyId, lease.windows, lease.left));
  }

  /** Remembers a give-back in flight until it is done: the key's next lease waits for it. */
  private returned(keyId: number, giving: Promise<void>): void {
    const all = Promise.all([this.returning.get(keyId), giving]).then(() => {
      if (this.returning.get(keyId) === all) this.returning.delete(keyId);
    });
    this.returning.set(keyId, all);
  }

  /** A give-back that fails leaves the places counted: a key refused early, never one admitted beyond its limit. */
  private refund(keyId: number, windows: UsageWindows, count: number): Promise<void> {
    return this.store.refundRequest(keyId, windows, count).catch(() => undefined);
  }
}
