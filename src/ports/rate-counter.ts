/**
 * Where the general per-key request rate is counted when it must hold for every process of
 * a cluster (docs/operations.md, "Several processes"): Redis (`--redis`), or PostgreSQL.
 * Without one, each process counts in its own memory (@fastify/rate-limit's local store).
 */
export interface RateCounter {
  /** What it counts in, for the log: `redis` or `postgres`. */
  readonly name: string;
  /**
   * Counts one request under `key` in its current fixed window of `windowMs` (a window starts
   * at the first request after the last one ended): the requests counted in that window so
   * far, this one included, and the milliseconds left in it. Rejects when the counter cannot
   * answer in its bounded time; the caller then lets the request through (fail-open).
   */
  hit(key: string, windowMs: number): Promise<{ current: number; ttlMs: number }>;
  close(): Promise<void>;
}
