/**
 * The per-key rate of a cluster counted ahead, in leases. Counting every request
 * in the shared tally (Redis, PostgreSQL) costs a round trip before each request can go on.
 * Instead a process takes a key's counts a block at a time: it adds a lease of `n` requests
 * to the key's window in one call and hands out those places itself until they are used or
 * the window ends; requests that arrive while a lease is being taken wait for it, and the
 * next lease is at least as large as the queue.
 *
 * What it keeps: every place handed out was counted in the shared window first, so the
 * cluster never admits more than `max` in a window. What it gives up: places leased and not
 * used before the window ends count although no request used them, so when one key's
 * requests are spread over several processes and exceed its rate, the cluster may refuse
 * a few requests early: at most (processes - 1) x (lease - 1) a window. A lease is 1/20 of
 * the rate (docs/decisions.md, "Cluster"): the rate of 100 a second is counted 5 at a time,
 * and rates under 40 a second one request at a time, as before, where a place
 * matters most.
 */
import type { Counted, RateCounter, RateTally } from '../../ports/rate-counter.js';

/** A lease is this share of the window's limit (at least 1). */
const leaseShare = 1 / 20;
/** Past this many keys, leases whose window ended are forgotten (keys come from callers). */
const keptKeys = 10_000;

interface Waiter {
  resolve(counted: Counted): void;
  reject(error: unknown): void;
}

interface Lease {
  /** The next place to hand out, and the last one leased. */
  next: number;
  last: number;
  /** When the window ends, on this process's clock. */
  until: number;
  /** Requests waiting for the lease being taken. */
  waiting: Waiter[];
  asking: boolean;
}

export function leaseSize(max: number): number {
  return Math.max(1, Math.floor(max * leaseShare));
}

export class RateLeases implements RateCounter {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly tally: RateTally,
    private readonly now: () => number = Date.now,
  ) {}

  get name(): string {
    return this.tally.name;
  }

  hit(key: string, windowMs: number, max: number): Promise<Counted> {
    const now = this.now();
    let lease = this.leases.get(key);
    if (lease !== undefined && !lease.asking && lease.until > now && lease.next <= lease.last) {
      return Promise.resolve({ current: lease.next++, ttlMs: lease.until - now });
    }
    if (lease === undefined) {
      if (this.leases.size >= keptKeys) this.forgetEnded(now);
      lease = { next: 1, last: 0, until: 0, waiting: [], asking: false };
      this.leases.set(key, lease);
    }
    const waiting = lease;
    const answer = new Promise<Counted>((resolve, reject) => waiting.waiting.push({ resolve, reject }));
    if (!lease.asking) this.ask(key, lease, windowMs, max);
    return answer;
  }

  /** Takes a lease for the waiting requests (and some ahead), then hands its places out in arrival order. */
  private ask(key: string, lease: Lease, windowMs: number, max: number): void {
    lease.asking = true;
    const n = Math.max(lease.waiting.length, leaseSize(max));
    this.tally.add(key, windowMs, n).then(
      ({ current, ttlMs }) => {
        lease.asking = false;
        lease.next = current - n + 1;
        lease.last = current;
        lease.until = this.now() + ttlMs;
        const waiting = lease.waiting.splice(0, n);
        for (const w of waiting) w.resolve({ current: lease.next++, ttlMs });
        // Arrived while this lease was taken, and more than it held.
        if (lease.waiting.length > 0) this.ask(key, lease, windowMs, max);
      },
      (error: unknown) => {
        lease.asking = false;
        const waiting = lease.waiting.splice(0);
        this.leases.delete(key);
        for (const w of waiting) w.reject(error);
      },
    );
  }

  private forgetEnded(now: number): void {
    for (const [key, lease] of this.leases) {
      if (!lease.asking && lease.until <= now) this.leases.delete(key);
    }
  }

  close(): Promise<void> {
    return this.tally.close();
  }
}
