/**
 * Quota leases: a key's places in a shared count (the store, Redis) taken a block at a
 * time. Counting each request in the shared count costs a round trip before the request
 * can go on; instead a process counts a block of a key's requests at once and hands the
 * places out itself. Requests that arrive while a block is being counted wait for it; the
 * next block is at least as large as the queue. Every place handed out was counted first,
 * so processes sharing the count never admit more than it allows.
 *
 * The one engine of the request counts (services/usage-leases.ts: hourly, daily and monthly
 * limits) and the shared rate (adapters/rate/rate-leases.ts): what differs between them is
 * the policy (what makes two requests countable in one block, when a block has ended, what
 * happens to places not used).
 */

/**
 * A block is this share of the limit it counts against (docs/decisions.md, "Cluster"): small
 * enough that places leased and unused in other processes refuse a key only a little early.
 */
export const leaseShare = 1 / 20;

/** What the shared count answered for a block: how many of the places asked were granted. */
export interface Block {
  granted: number;
}

export interface QuotaPolicy<R, B extends Block> {
  /** Whether two requests count in one block (same windows and limits). */
  alike(a: R, b: R): boolean;
  /** Whether a block still serves at `now` (its window has not ended). */
  current(block: B, now: number): boolean;
  /** The places to ask for a request's block, at least one. */
  size(request: R): number;
  /** Counts `n` places alike to `first` in the shared count. */
  count(key: string, first: R, n: number): Promise<B>;
  /** Whether a request that found no place left in a granted block is refused (else it waits for the next block). */
  refuses(block: B): boolean;
  /** Gives `n` places counted under `terms` and not used back to the shared count (or lets them lapse). */
  giveBack(key: string, terms: R, n: number): Promise<void>;
}

/** A place handed out (its index in its block, from 0), or a refusal with the block that refused. */
export type Taken<B> = { place: number; block: B } | { refused: B };

interface Waiter<R, B> {
  request: R;
  settle(taken: Taken<B>): void;
  fail(error: unknown): void;
}

interface Lease<R, B> {
  terms: R;
  block: B | null;
  /** Places of the block handed out, and left. */
  used: number;
  left: number;
  lastUsed: number;
  waiting: Waiter<R, B>[];
  asking: boolean;
}

export interface QuotaLeaseOptions {
  /** Give back the places of a key idle this long (null: keep them until the block ends). */
  idleMs: number | null;
  /** Past this many keys, leases whose block ended are forgotten. */
  keptKeys: number;
}

export class QuotaLeases<R, B extends Block> {
  private readonly leases = new Map<string, Lease<R, B>>();
  /** Give-backs in flight, by key: the key's next count waits for them. */
  private readonly returning = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly policy: QuotaPolicy<R, B>,
    private readonly now: () => number,
    private readonly options: QuotaLeaseOptions,
  ) {}

  /** One place for the request: from the key's block, or from the next one counted. */
  take(key: string, request: R): Promise<Taken<B>> {
    const now = this.now();
    let lease = this.leases.get(key);
    if (lease !== undefined && !lease.asking && !this.serves(lease, request, now)) {
      this.retire(key, lease);
      lease = undefined;
    }
    if (lease?.block != null && !lease.asking && lease.left > 0) {
      lease.left -= 1;
      lease.lastUsed = now;
      return Promise.resolve({ place: lease.used++, block: lease.block });
    }
    if (lease === undefined) {
      if (this.leases.size >= this.options.keptKeys) this.forgetEnded(now);
      lease = { terms: request, block: null, used: 0, left: 0, lastUsed: now, waiting: [], asking: false };
      this.leases.set(key, lease);
      if (this.options.idleMs !== null)
        this.timer ??= setInterval(() => this.giveBackIdle(), this.options.idleMs).unref();
    }
    const held = lease;
    const answer = new Promise<Taken<B>>((settle, fail) => held.waiting.push({ request, settle, fail }));
    if (!lease.asking) this.ask(key, lease);
    return answer;
  }

  /** A place handed out and not used after all: back to its block while it serves, else to the shared count. */
  putBack(key: string, request: R): Promise<void> {
    const lease = this.leases.get(key);
    if (lease !== undefined && !lease.asking && this.serves(lease, request, this.now())) {
      lease.left += 1;
      return Promise.resolve();
    }
    return this.policy.giveBack(key, request, 1);
  }

  /** Gives every unused place back (a graceful stop). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const returns: Promise<void>[] = [];
    for (const [key, lease] of this.leases)
      if (!lease.asking && lease.left > 0) returns.push(this.policy.giveBack(key, lease.terms, lease.left));
    this.leases.clear();
    await Promise.all([...returns, ...this.returning.values()]);
  }

  private serves(lease: Lease<R, B>, request: R, now: number): boolean {
    return this.policy.alike(lease.terms, request) && (lease.block === null || this.policy.current(lease.block, now));
  }

  private ask(key: string, lease: Lease<R, B>): void {
    const first = lease.waiting[0]?.request;
    if (first === undefined) return;
    lease.asking = true;
    // Waiters that differ (a window began, a limit changed) wait for the next ask.
    if (lease.left > 0 && !this.serves(lease, first, this.now())) {
      this.returned(key, this.policy.giveBack(key, lease.terms, lease.left));
      lease.left = 0;
    }
    lease.terms = first;
    const alike = lease.waiting.filter((w) => this.policy.alike(w.request, first)).length;
    const n = Math.max(alike, this.policy.size(first));
    const counted = (this.returning.get(key) ?? Promise.resolve()).then(() => this.policy.count(key, first, n));
    counted.then(
      (block) => {
        lease.asking = false;
        lease.block = block;
        lease.used = 0;
        lease.left = block.granted;
        lease.lastUsed = this.now();
        const waiting = lease.waiting;
        lease.waiting = [];
        for (const w of waiting) {
          if (!this.policy.alike(w.request, first)) lease.waiting.push(w);
          else if (lease.left > 0) {
            lease.left -= 1;
            w.settle({ place: lease.used++, block });
          } else if (this.policy.refuses(block)) w.settle({ refused: block });
          // More arrived than this block held: they wait for the next.
          else lease.waiting.push(w);
        }
        if (lease.waiting.length > 0) this.ask(key, lease);
      },
      (error: unknown) => {
        lease.asking = false;
        const waiting = lease.waiting.splice(0);
        this.leases.delete(key);
        for (const w of waiting) w.fail(error);
      },
    );
  }

  private retire(key: string, lease: Lease<R, B>): void {
    this.leases.delete(key);
    if (lease.left > 0) this.returned(key, this.policy.giveBack(key, lease.terms, lease.left));
  }

  private giveBackIdle(): void {
    const now = this.now();
    for (const [key, lease] of this.leases) {
      if (!lease.asking && lease.waiting.length === 0 && now - lease.lastUsed >= (this.options.idleMs ?? 0))
        this.retire(key, lease);
    }
    if (this.leases.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private forgetEnded(now: number): void {
    for (const [key, lease] of this.leases)
      if (!lease.asking && lease.block !== null && !this.policy.current(lease.block, now)) this.leases.delete(key);
  }

  /** Remembers a give-back in flight until it is done: the key's next count waits for it. */
  private returned(key: string, giving: Promise<void>): void {
    const all = Promise.all([this.returning.get(key), giving]).then(() => {
      if (this.returning.get(key) === all) this.returning.delete(key);
    });
    this.returning.set(key, all);
  }
}
