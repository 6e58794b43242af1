/**
 * Where the general per-key request rate is counted when it must hold for every process of
 * a cluster (docs/operations.md, "Several processes"): Redis (`--redis`), or PostgreSQL.
 * Without one, each process counts in its own memory (@fastify/rate-limit's local store).
 */

/** A count in a window: the requests counted in it so far, and the milliseconds left in it. */
export interface Counted {
  current: number;
  ttlMs: number;
}

/** What the HTTP layer asks: one request's place in its key's window. */
export interface RateCounter {
  /** What it counts in, for the log: `redis` or `postgres`. */
  readonly name: string;
  /**
   * Counts one request under `key` in its current fixed window of `windowMs` (a window starts
   * at the first request after the last one ended), whose limit is `max`: the requests
   * counted in that window so far, this one included, and the milliseconds left in it.
   * Rejects when the counter cannot answer in its bounded time; the caller then lets the
   * request through (fail-open).
   */
  hit(key: string, windowMs: number, max: number): Promise<Counted>;
  close(): Promise<void>;
}

/** The shared tally behind a RateCounter (Redis, PostgreSQL): adds `n` requests at once. */
export interface RateTally {
  readonly name: string;
  /** Adds `n` requests under `key` to its current window: the count after them, and the ms left. */
  add(key: string, windowMs: number, n: number): Promise<Counted>;
  close(): Promise<void>;
}
