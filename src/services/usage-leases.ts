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
 * The block logic is the one engine of quota leases (src/util/quota-leases.ts); this is its
 * policy for request counts.
 */
import type { LimitHit, RequestLimits, UsageRequest, UsageWindows } from '../domain/request-limits.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { QuotaLeases, leaseShare } from '../util/quota-leases.js';
import { StoreUnavailable, outcomeUnknown } from '../util/store-faults.js';
import type { QuotaPolicy } from '../util/quota-leases.js';

/** A lease is `leaseShare` of the key's smallest limit, at least 1 and at most `maxLease`. */
const maxLease = 1000;

/** The store's side: counts requests in order (null: admitted), gives counts back. */
export interface UsageCounts {
  consumeRequests(items: readonly UsageRequest[]): Promise<(LimitHit | null)[]>;
  refundRequest(keyId: number, windows: UsageWindows, count?: number): Promise<void>;
}

export type Counting = { refused: LimitHit } | { undo: () => Promise<void> };

/** What the store admitted of an ask: a prefix of its places, and the limit the rest ran into. */
interface Admitted {
  granted: number;
  hit: LimitHit | null;
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
  private readonly leases: QuotaLeases<UsageRequest, Admitted>;
  /** The asks of one turn counted in one call (one statement on PostgreSQL). */
  private readonly batcher: MicroBatcher<Ask, Admitted>;

  constructor(
    private readonly store: UsageCounts,
    now: () => number,
    idleMs = 1000,
  ) {
    this.batcher = new MicroBatcher((asks: Ask[]) => this.count(asks), 100);
    const policy: QuotaPolicy<UsageRequest, Admitted> = {
      alike: (a, b) => sameWindows(a.windows, b.windows) && sameLimits(a.limits, b.limits),
      // A window's counts stay in the store until they are given back.
      current: () => true,
      size: (request) => usageLeaseSize(request.limits),
      count: (_key, request, n) => this.batcher.add({ request, n }),
      refuses: (admitted) => admitted.hit !== null,
      // A give-back that fails leaves the places counted: a key refused early, never one admitted beyond its limit.
      giveBack: (_key, request, n) =>
        this.store.refundRequest(request.keyId, request.windows, n).catch(() => undefined),
    };
    this.leases = new QuotaLeases(policy, now, { idleMs, keptKeys: Number.POSITIVE_INFINITY });
  }

  /** Counts one request: refused with the limit it ran into, or admitted with how to take it back. */
  async take(request: UsageRequest): Promise<Counting> {
    const key = String(request.keyId);
    const taken = await this.leases.take(key, request);
    if ('refused' in taken) return { refused: taken.refused.hit as LimitHit };
    return { undo: () => this.leases.putBack(key, request) };
  }

  /** Gives every unused place back to the store (a graceful stop). */
  close(): Promise<void> {
    return this.leases.close();
  }

  /** The asks of a turn: each ask's n requests counted in order; granted is how many were admitted. */
  private async count(asks: readonly Ask[]): Promise<Admitted[]> {
    // One item per place; the store answers by position.
    const items = asks.flatMap((a) => Array.from({ length: a.n }, () => a.request));
    const hits = await this.store.consumeRequests(items).catch((error: unknown) => {
      // A count lost on its way may have been made: at worst places counted and never used,
      // as a lease's are. The requests it counted were not carried out: "again, later".
      throw outcomeUnknown(error)
        ? new StoreUnavailable('the request counts were not answered', { cause: error })
        : error;
    });
    let at = 0;
    return asks.map((a) => {
      const answers = hits.slice(at, (at += a.n));
      // The store admits a key's requests in order until a limit is reached: a prefix.
      const granted = answers.filter((h) => h === null).length;
      return { granted, hit: answers.find((h) => h !== null) ?? null };
    });
  }
}
