/**
 * Migration 0035: the panel's rollups derived after the commit (docs/decisions.md, "Rollups
 * after the commit").
 *
 * - `count_deltas`: an append-only queue. A transaction that inserts messages or moves them
 *   into or out of delivered / failed appends one row: the sums it would have added to
 *   `daily_counts` and `send_counts`, as JSON. The deriver (src/jobs/count-deriver.ts)
 *   reads rows, adds their sums to the rollups and deletes exactly the rows it read, in one
 *   transaction: a row is counted once, whatever order the writers committed in.
 * - `derivations`: one row per derivation, locked by the deriver for its transaction (one
 *   deriver at a time on PostgreSQL; others skip the round), with what it derived last.
 *
 * SQLite's queue key is the rowid (no AUTOINCREMENT: a reused id is harmless, rows are
 * deleted by the ids read, and one writer at a time).
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  const queueId = dialect === 'postgres' ? sql.raw('id bigserial primary key') : sql.raw('id integer primary key');
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table count_deltas (${queueId}, deltas text not null)`.execute(db);
      await sql`create table derivations (
        name text primary key,
        derived_rows bigint not null default 0,
        derived_at bigint not null default 0
      )`.execute(db);
      await sql`insert into derivations (name) values ('rollups')`.execute(db);
    },
  };
}
