import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ExternalChanges, StoreConnection } from '../connection.js';
import type { StoreLocation } from '../store-location.js';
import { WriteFaults, busyTimeoutMs } from './immediate-driver.js';
import { ImmediateSqliteDialect } from './sqlite-dialect.js';
import { statementCache } from './statement-cache.js';
import { ThreadWriteLock } from './thread-write-lock.js';

/**
 * Opens a SQLite store's file: WAL, the statement cache, BEGIN IMMEDIATE behind the threads'
 * lock. `onWriteLockWait`: told of each wait of this connection for that lock (metrics).
 */
export function openSqlite(
  location: Extract<StoreLocation, { dialect: 'sqlite' }>,
  onWriteLockWait: ((seconds: number) => void) | null = null,
): StoreConnection {
  const sqlite = new BetterSqlite3(location.file);
  // WAL lets the admin CLI and readers work while the server writes; busy_timeout makes a
  // second process wait for the write lock instead of failing at once.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  sqlite.pragma('foreign_keys = ON');
  if (location.checkpoints === 'manual') sqlite.pragma('wal_autocheckpoint = 0');
  const checkpoint = sqlite.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const threads = new ThreadWriteLock(location.threadLock?.buffer, location.threadLock?.as, onWriteLockWait);
  const faults = new WriteFaults();
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect(statementCache(sqlite), sqlite, threads, faults),
  });
  // Prepared at first use: the table comes with migration 0008, after the store is opened.
  let lookupVersion: BetterSqlite3.Statement<[], ExternalChanges> | null = null;
  return {
    db,
    dialect: 'sqlite',
    close: () => db.destroy(),
    externalChanges: () => {
      const row = (lookupVersion ??= sqlite.prepare<[], ExternalChanges>(
        'select n as lookups, balances from lookup_version',
      )).get();
      return { lookups: Number(row?.lookups), balances: Number(row?.balances) };
    },
    writeFault: () => faults.fault(),
    writeLockHeldMs: () => threads.heldMs(),
    checkpoint: () => {
      if (sqlite.open && !sqlite.inTransaction) checkpoint.get();
    },
  };
}
