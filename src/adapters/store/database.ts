import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations.js';
import type { Dialect } from './migrations.js';

export type { Dialect };

export type StoreLocation =
  | { dialect: 'sqlite'; file: string }
  | { dialect: 'postgres'; url: string; schema?: string; poolSize?: number };

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the store lives in, when not the default. */
  schema?: string;
  close(): Promise<void>;
}

// int8 (bigint) columns hold epoch milliseconds and balances: well inside 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

export function sqliteFileIn(dataDir: string): string {
  mkdirSync(resolve(dataDir), { recursive: true });
  return join(resolve(dataDir), 'haberci.sqlite');
}

/**
 * Kysely prepares every query afresh; parsing SQL is a large share of a query's cost on
 * SQLite, so prepared statements are kept by their text (bounded, cleared when full).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, limit = 2000): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteStatement {
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (cache.size >= limit) cache.clear();
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

export function openDb(location: StoreLocation): Db {
  if (location.dialect === 'sqlite') {
    const sqlite = new BetterSqlite3(location.file);
    // WAL lets the admin CLI and readers work while the server writes; busy_timeout makes a
    // second process wait for the write lock instead of failing at once.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const options = location.schema ? `-c search_path=${location.schema}` : undefined;
  const pool = new pg.Pool({ connectionString: location.url, max: location.poolSize ?? 10, options });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', schema: location.schema, close: () => db.destroy() };
}

export class MigrationError extends Error {}

export async function migrate(handle: Db): Promise<void> {
  // The migration tables live beside the store's own, not in whichever schema has them first.
  const migrator = new Migrator({
    db: handle.db,
    provider: migrationProvider(handle.dialect),
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`store migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
