/**
 * What the two dialects do differently inside the store's parts, one implementation each
 * (`sqlite/dialect-sql.ts`, `postgres/dialect-sql.ts`), so the parts hold no dialect
 * branches: row locks, which only PostgreSQL needs (SQLite has one writer at a time, taken
 * at BEGIN IMMEDIATE), the id space of sends and messages, lists bound as one parameter,
 * planner hints, and what only a store shared by processes has (wakes, a shared rate).
 */
import type { RawBuilder } from 'kysely';
import type { Dialect } from './store-location.js';
import type { Executor } from './executor.js';
import type { WakeJob } from '../../ports/wakes.js';
import type { LimitHit, UsageRequest } from '../../domain/request-limits.js';

/** A query that can lock the rows it reads (Kysely's SelectQueryBuilder). */
export interface Lockable<Q> {
  forUpdate(): Q;
  forShare(): Q;
  skipLocked(): Q;
}

/**
 * `make` once per dialect: a statement prepared with what the dialect does its own way
 * (`perDialect((d) => preparedQuery(... d.claim(query) ...))`), looked up by the part's `sql`.
 */
export function perDialect<T>(make: (dialect: DialectSql) => T): (dialect: DialectSql) => T {
  const made = new WeakMap<DialectSql, T>();
  return (dialect) => {
    let value = made.get(dialect);
    if (value === undefined) {
      value = make(dialect);
      made.set(dialect, value);
    }
    return value;
  };
}

export interface DialectSql {
  readonly dialect: Dialect;
  /** Several writers at once (PostgreSQL): reads that decide a write lock their rows. */
  readonly locksRows: boolean;
  /**
   * Many processes serve one store (PostgreSQL): wakes reach the others, the request rate is
   * counted in the store. SQLite's one process keeps both in memory.
   */
  readonly sharedByProcesses: boolean;
  /**
   * Reads of one turn of the event loop share a round trip (PostgreSQL, across a network);
   * SQLite reads in process, where a batch only adds a wait.
   */
  readonly batchesReads: boolean;
  /** Locks the rows read until the transaction ends. */
  forUpdate<Q extends Lockable<Q>>(query: Q): Q;
  /** Keeps the rows read from changing until the transaction ends. */
  forShare<Q extends Lockable<Q>>(query: Q): Q;
  /** Claims rows no other worker is claiming: those locked by another are skipped. */
  claim<Q extends Lockable<Q>>(query: Q): Q;
  /** `claim` in raw SQL: the clause ending a select whose rows are claimed (nothing on SQLite). */
  readonly claimClause: RawBuilder<unknown>;
  /**
   * A column the planner must not choose an index for, where it would choose a worse one
   * (SQLite: a unary +, keeping it on the ids given; PostgreSQL: the column as it is).
   */
  unindexed(column: string): RawBuilder<unknown>;
  /** Tells every process listening on this store to wake `job` (PostgreSQL's NOTIFY; nothing on SQLite). */
  wake(db: Executor, job: WakeJob): Promise<void>;
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
  /**
   * Rows of texts as one bound parameter: a subquery with the columns c0, c1, ... (SQLite:
   * json_each of a JSON array of arrays; PostgreSQL: unnest of one text[] a column). Give it
   * an alias: `from ${textRows(rows, 3)} as r`.
   */
  textRows(rows: readonly (readonly string[])[], width: number): RawBuilder<unknown>;
}
