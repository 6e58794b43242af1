/**
 * Migration 0020: `rate_windows`, where processes on PostgreSQL without
 * `--redis` count the general per-key request rate together (SqlRateWindows). A row per
 * rated key and route: the end of its current one-second window and the requests counted
 * in it. UNLOGGED on PostgreSQL: counts of the current second need no durability, and
 * skipping the WAL keeps the hot update cheap (a crash empties the table: every key starts
 * a fresh window). SQLite has the table too, unused (one process counts in its memory).
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const unlogged = dialect === 'postgres' ? sql.raw('unlogged ') : sql.raw('');
      await sql`create ${unlogged}table rate_windows (
        rate_key text primary key,
        window_end bigint not null,
        hits integer not null
      )`.execute(db);
    },
  };
}
