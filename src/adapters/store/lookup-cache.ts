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
 * Lookups remembered between requests on SQLite, where the store can say exactly when they
 * may have changed. Every write of this process to the tables a lookup reads empties the
 * cache at once, and any commit of another connection empties it at the next turn of the
 * event loop, when the counters of `lookup_version` are read again (the signal's `external`,
 * read once a turn).
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
