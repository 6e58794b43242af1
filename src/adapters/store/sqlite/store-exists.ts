import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_MIGRATION_TABLE } from 'kysely';

/** Whether the file holds a store (its migration table), looked at read-only: nothing is created. */
export function sqliteStoreExists(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(DEFAULT_MIGRATION_TABLE) !==
      undefined
    );
  } finally {
    db.close();
  }
}
