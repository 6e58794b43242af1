/** Migration 0008-lookup-version: its name is recorded in every store it ran on, so it never changes. */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // SQLite caches key and sender ID lookups (there is no cache on PostgreSQL). They
      // were emptied by every commit of another connection (PRAGMA data_version), so the
      // job thread's steady commits of messages emptied them on nearly every turn.
      // This counter moves only with writes to the tables the lookups read, whoever
      // makes them (this process, the admin CLI, another server, a hand-run sqlite3).
      if (dialect !== 'sqlite') return;
      await sql`create table lookup_version (id integer primary key check (id = 1), n integer not null)`.execute(db);
      await sql`insert into lookup_version (id, n) values (1, 0)`.execute(db);
      for (const table of ['accounts', 'api_keys', 'sender_ids']) {
        for (const event of ['insert', 'update', 'delete']) {
          await sql
            .raw(
              `create trigger ${table}_${event}_lookup_version after ${event} on ${table} begin update lookup_version set n = n + 1 where id = 1; end`,
            )
            .execute(db);
        }
      }
    },
  };
}
