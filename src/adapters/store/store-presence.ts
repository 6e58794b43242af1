import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { DEFAULT_MIGRATION_TABLE } from 'kysely';
import type { StoreLocation } from './store-location.js';

/**
 * Whether a store is there: its migration table exists (in the SQLite file, or in the
 * PostgreSQL schema that unqualified names resolve to, where `migrate` keeps it). Looks
 * without writing anything: no file, folder or table is made when there is none.
 */
export async function storeExists(location: StoreLocation): Promise<boolean> {
  return location.dialect === 'sqlite' ? sqliteStoreExists(location.file) : postgresStoreExists(location.url, location.schema);
}

function sqliteStoreExists(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(DEFAULT_MIGRATION_TABLE) !== undefined;
  } finally {
    db.close();
  }
}

async function postgresStoreExists(url: string, schema: string | undefined): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>(
      `select exists (select 1 from information_schema.tables where table_schema = current_schema() and table_name = $1) as found`,
      [DEFAULT_MIGRATION_TABLE],
    );
    return rows[0]?.found === true;
  } finally {
    await client.end();
  }
}

/** Where a store is, for a message: a PostgreSQL URL without its password. */
export function describeLocation(location: StoreLocation): string {
  if (location.dialect === 'sqlite') return location.file;
  try {
    const url = new URL(location.url);
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'the PostgreSQL database of --database';
  }
}
