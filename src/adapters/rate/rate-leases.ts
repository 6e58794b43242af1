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
 * matters most. The block logic is the one engine of quota leases (src/util/quota-leases.ts);
 * this is its policy for the shared rate.
 */
import type { Counted, RateCounter, RateTally } from '../../ports/rate-counter.js';
import { QuotaLeases, leaseShare } from '../../util/quota-leases.js';

/** Past this many keys, leases whose window ended are forgotten (keys come from callers). */
const keptKeys = 10_000;

/** A request's window and limit. */
interface RateTerms {
  windowMs: number;
  max: number;
}

/** A block counted in the tally: its places are the counts up to `last`, until the window ends. */
interface RateBlock {
  granted: number;
  last: number;
  until: number;
}

export function leaseSize(max: number): number {
  return Math.max(1, Math.floor(max * leaseShare));
}

export class RateLeases implements RateCounter {
  private readonly leases: QuotaLeases<RateTerms, RateBlock>;

  constructor(
    private readonly tally: RateTally,
    private readonly now: () => number = Date.now,
  ) {
    this.leases = new QuotaLeases<RateTerms, RateBlock>(
      {
        alike: (a, b) => a.windowMs === b.windowMs && a.max === b.max,
        current: (block, at) => block.until > at,
        size: (terms) => leaseSize(terms.max),
        count: async (key, terms, n) => {
          const { current, ttlMs } = await this.tally.add(key, terms.windowMs, n);
          return { granted: n, last: current, until: this.now() + ttlMs };
        },
        // The tally counts every place asked; the caller compares the count with the limit.
        refuses: () => false,
        // Places not used lapse with their window.
        giveBack: () => Promise.resolve(),
      },
      now,
      { idleMs: null, keptKeys },
    );
  }

  get name(): string {
    return this.tally.name;
  }

  async hit(key: string, windowMs: number, max: number): Promise<Counted> {
    const taken = await this.leases.take(key, { windowMs, max });
    if ('refused' in taken) throw new Error('a rate tally never refuses');
    const { place, block } = taken;
    return { current: block.last - block.granted + 1 + place, ttlMs: Math.max(0, block.until - this.now()) };
  }

  async close(): Promise<void> {
    await this.leases.close();
    await this.tally.close();
  }
}
