/**
 * Tests that run this build's writes on a store made by older migrations (a migration's own
 * test on the data before it) need the columns those writes name and a later migration adds:
 * `withLaterColumns` adds them for the writes, `withoutLaterColumns` takes them away again
 * before the real migrations run (which add them for good).
 */
import { sql } from 'kysely';
import type { Executor } from '../../src/adapters/store/executor.js';

/** Columns this build writes on creating an account's key and a send, with the migration that adds each. */
const laterColumns: readonly { table: string; column: string; type: string }[] = [
  { table: 'api_keys', column: 'webhook_batch', type: 'INTEGER NOT NULL DEFAULT 1' }, // 0061
  { table: 'api_keys', column: 'webhook_batch_wait_ms', type: 'INTEGER NOT NULL DEFAULT 0' }, // 0061
  { table: 'sends', column: 'send_window', type: 'TEXT' }, // 0059
  { table: 'sends', column: 'speed', type: 'INTEGER' }, // 0059
  { table: 'sends', column: 'valid_until', type: 'BIGINT' }, // 0059
  { table: 'sends', column: 'pace_next_at', type: 'BIGINT' }, // 0059
  { table: 'sends', column: 'short_links', type: 'INTEGER NOT NULL DEFAULT 0' }, // 0065
];

export async function withLaterColumns(db: Executor): Promise<void> {
  for (const c of laterColumns) await sql.raw(`ALTER TABLE ${c.table} ADD COLUMN ${c.column} ${c.type}`).execute(db);
}

export async function withoutLaterColumns(db: Executor): Promise<void> {
  for (const c of laterColumns) await sql.raw(`ALTER TABLE ${c.table} DROP COLUMN ${c.column}`).execute(db);
}
