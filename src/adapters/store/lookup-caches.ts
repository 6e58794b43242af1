/**
 * The lookup caches (keys with their accounts, balances, sender ID checks) and what empties
 * them. The store's own write methods say what they changed (`keysChanged`,
 * `balancesChanged`, `sendersChanged`); other connections' commits are seen through two
 * counters: on SQLite those of `lookup_version`, which triggers move; on PostgreSQL what a
 * LISTEN connection heard of triggers' NOTIFYs (postgres/lookup-changes.ts). A store whose
 * connection has no such signal (PostgreSQL without `cacheLookups`) has no caches.
 */
import type { ExternalChanges } from './connection.js';
import type { BalanceBucket } from '../../ports/accounts.js';
import type { KeyWithAccount } from '../../ports/keys.js';

/** What tells a cache that the rows behind it may have changed (counters that only move). */
export interface ChangeSignal {
  /** Moves with the commits of other connections (the admin CLI, another process) that concern the cache. */
  external(): number;
  /** Moves with every write of this process to the tables the cached lookups read. */
  local(): number;
}

/**
 * Reads the change counters at most once per turn of the event loop: a reading costs a
 * statement, and the caches of one turn can share it.
 */
export function oncePerTurn<T>(read: () => T): () => T {
  let value: T | undefined;
  let fresh = false;
  return () => {
    if (!fresh) {
      value = read();
      fresh = true;
      setImmediate(() => (fresh = false));
    }
    return value as T;
  };
}

/**
 * Lookups remembered between requests, where the store can say when they may have changed. Every write method of this process that changes what a lookup reads
 * empties the cache at once (it moves the `local` counter), and any commit of another connection empties it at the next turn of the
 * event loop, when the counters are read again (the signal's `external`, read once a turn;
 * on PostgreSQL, once the commit's notification has arrived).
 * Bounded: when full it is emptied, so callers choosing the keys cannot grow it without end.
 */
export class LookupCache<V> {
  private readonly entries = new Map<string, V>();
  private local = -1;
  private external = -1;

  constructor(
    private readonly changes: ChangeSignal,
    private readonly limit = 10_000,
  ) {}

  /**
   * The remembered answer, or the one `load` gives, remembered unless it is null or the
   * tables may have changed while it was loading (a write of this process, or a newer
   * external count seen meanwhile): it could then be older than what the cache now stands for.
   */
  lookup(key: string, load: () => Promise<V | null>): Promise<V | null> {
    this.validate();
    const cached = this.entries.get(key);
    return cached !== undefined ? Promise.resolve(cached) : this.loadAndKeep(key, load);
  }

  private async loadAndKeep(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const local = this.local;
    const external = this.external;
    const value = await load();
    if (value !== null && this.validate() && this.local === local && this.external === external) {
      if (this.entries.size >= this.limit) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  /** Empties the cache if either counter moved since it was last read; true when neither did. */
  private validate(): boolean {
    const local = this.changes.local();
    const external = this.changes.external();
    if (local === this.local && external === this.external) return true;
    this.entries.clear();
    this.local = local;
    this.external = external;
    return false;
  }
}

/**
 * The caches of one store (one thread's connection), and the counters its write methods move.
 * A write inside a transaction counts at once, before its commit: the cache is emptied early,
 * never late, and a lookup loading meanwhile is not kept.
 */
export class LookupCaches {
  private keyWrites = 0;
  private senderWrites = 0;
  private balanceWrites = 0;
  /** Keys with their accounts, by key hash (balances laid over from `balances`). */
  readonly keys: LookupCache<KeyWithAccount>;
  /** Sender ID checks by account and title, approved or not (bounded, so unknown titles cannot grow it). */
  readonly senders: LookupCache<boolean>;
  /**
   * Balances by account, laid over the cached key's account: every send charges one, so
   * they have a signal of their own, and a charge leaves the key and sender caches alone.
   */
  readonly balances: LookupCache<Record<BalanceBucket, number>>;

  constructor(externalChanges: () => ExternalChanges) {
    const external = oncePerTurn(externalChanges);
    const lookups = (): number => external().lookups;
    this.keys = new LookupCache({ external: lookups, local: () => this.keyWrites });
    this.senders = new LookupCache({ external: lookups, local: () => this.senderWrites });
    // Both counters only move, so their sum moves whenever either does: a balance read
    // through a cached key is as old as the older of the two.
    this.balances = new LookupCache({
      external: () => {
        const counts = external();
        return counts.lookups + counts.balances;
      },
      local: () => this.keyWrites + this.balanceWrites,
    });
  }

  /** This process changed a key, or an account other than its balances. */
  keysChanged(): void {
    this.keyWrites += 1;
  }

  /** This process changed a balance (a charge, a top-up). */
  balancesChanged(): void {
    this.balanceWrites += 1;
  }

  /** This process added, changed or removed a sender ID. */
  sendersChanged(): void {
    this.senderWrites += 1;
  }
}
