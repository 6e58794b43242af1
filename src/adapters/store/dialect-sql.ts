/**
 * What the two dialects do differently inside the store's parts, one implementation each
 * (`sqlite/dialect-sql.ts`, `postgres/dialect-sql.ts`), so the parts hold no dialect
 * branches: row locks, which only PostgreSQL needs (SQLite has one writer at a time, taken
 * at BEGIN IMMEDIATE), and the id space of sends and messages.
 */
import type { RawBuilder } from 'kysely';
import type { Dialect } from './store-location.js';
import type { Executor } from './executor.js';
import type { LimitHit, UsageRequest } from '../../domain/request-limits.js';

/** A query that can lock the rows it reads (Kysely's SelectQueryBuilder). */
export interface Lockable<Q> {
  forUpdate(): Q;
  forShare(): Q;
  skipLocked(): Q;
}

export interface DialectSql {
  readonly dialect: Dialect;
  /** Several writers at once (PostgreSQL): reads that decide a write lock their rows. */
  readonly locksRows: boolean;
  /** Locks the rows read until the transaction ends. */
  forUpdate<Q extends Lockable<Q>>(query: Q): Q;
  /** Keeps the rows read from changing until the transaction ends. */
  forShare<Q extends Lockable<Q>>(query: Q): Q;
  /** Claims rows no other worker is claiming: those locked by another are skipped. */
  claim<Q extends Lockable<Q>>(query: Q): Q;
  /** `count` unused ids from the one id space of sends and messages, ascending. */
  allocateIds(db: Executor, count: number): Promise<number[]>;
  /**
   * Runs `work` unless another process holds the lock named `name` for this store
   * (PostgreSQL: a session advisory lock, per schema, on a connection held meanwhile);
   * false when it did not run. SQLite runs it: one store file, whose writes take turns anyway.
   */
  exclusively(db: Executor, name: string, work: () => Promise<void>): Promise<boolean>;
  /**
   * Retention's upkeep of partitioned tables (PostgreSQL's `messages`, migration 0019):
   * partitions made ahead of the ids, old ones dropped whole. Nothing on SQLite.
   */
  keepPartitions(
    db: Executor,
    before: number,
    widthIds: number,
    stopping: () => boolean,
  ): Promise<{ created: number; dropped: number }>;
  /**
   * The request counts of a batch in one statement, outside a transaction (request-counts.ts);
   * null when the dialect cannot (SQLite: its transaction is one write-lock turn anyway) or
   * not for this batch: the caller then counts it in a transaction.
   */
  countRequests(db: Executor, items: readonly UsageRequest[]): Promise<(LimitHit | null)[] | null>;
  /**
   * A list of texts as one bound parameter, for `column in <list>`: a subquery over it
   * (SQLite: json_each of a JSON array; PostgreSQL: unnest of a text[]). One statement of
   * any length, compiled the same whatever the count (the İYS filter's 50,000 numbers).
   */
  textList(values: readonly string[]): RawBuilder<string>;
}
