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
 * - `message_numbers`: the panel's number search (an account's messages to one number, newest
 *   first), written by the deriver from the id ranges the queued rows name, in place of the
 *   index `messages_account_number` that every message insert paid for. Filled here from the
 *   messages stored; the index goes. By `message_id` too, for retention to remove rows with
 *   their messages.
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
      const withoutRowid = dialect === 'sqlite' ? sql.raw(' without rowid') : sql.raw('');
      await sql`create table message_numbers (
        account_id integer not null,
        recipient text not null,
        created_at bigint not null,
        message_id bigint not null,
        primary key (account_id, recipient, created_at, message_id)
      )${withoutRowid}`.execute(db);
      await sql`insert into message_numbers (account_id, recipient, created_at, message_id)
        select account_id, recipient, created_at, id from messages`.execute(db);
      await sql`create index message_numbers_message on message_numbers (message_id)`.execute(db);
      await sql`drop index messages_account_number`.execute(db);
    },
  };
}
