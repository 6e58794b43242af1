/**
 * The one factory of a thread's store: its connection (on SQLite: its role in the threads'
 * write lock and who checkpoints, from the location), the schema brought up to date, and
 * the lookup caches (SQLite, and PostgreSQL with `cacheLookups`). The composition root and the thread entry files open stores
 * here and nowhere else.
 */
import pino from 'pino';
import type { Logger } from 'pino';
import type { StoreLocation } from './store-location.js';
import type { StoreConnection } from './connection.js';
import { openSqlite } from './sqlite/open-sqlite.js';
import { openPostgres } from './postgres/open-postgres.js';
import { migrate } from './migrate.js';
import { LookupCaches } from './lookup-caches.js';
import { SqlStore } from './sql-store.js';
import { sqliteSql } from './sqlite/dialect-sql.js';
import { postgresSql } from './postgres/dialect-sql.js';
import { PgWakeListener } from './postgres/wake-channel.js';
import type { WakeJob, WakeListener } from '../../ports/wakes.js';

export interface OpenOptions {
  /** Told of a PostgreSQL connection that broke outside a query (the pool replaces it). */
  onConnectionError?: (error: Error) => void;
  /** Where PostgreSQL's lookup cache listener says it lost its connection (none: not said). */
  log?: Logger;
  /** SQLite: told of each wait of this connection for the threads' write lock, in seconds (metrics). */
  onWriteLockWait?: (seconds: number) => void;
}

/** A connection to the store at `location`, by its dialect, its schema not yet migrated. */
export function openConnection(location: StoreLocation, options: OpenOptions = {}): StoreConnection {
  return location.dialect === 'sqlite'
    ? openSqlite(location, options.onWriteLockWait ?? null)
    : openPostgres(location, options.onConnectionError ?? (() => undefined), options.log ?? pino({ enabled: false }));
}

/** The store on an open connection (its schema already migrated). */
export function storeOn(connection: StoreConnection): SqlStore {
  const caches = connection.externalChanges ? new LookupCaches(connection.externalChanges) : null;
  const sql = connection.dialect === 'sqlite' ? sqliteSql : postgresSql;
  return new SqlStore({ db: connection.db, sql, caches }, connection);
}

/** Opens the store at `location`, migrating its schema first; closed again if that fails. */
export async function openStore(location: StoreLocation, options: OpenOptions = {}): Promise<SqlStore> {
  if (location.dialect === 'postgres' && location.statementTimeoutMs !== 0) {
    // Migrations may rewrite or index whole tables: they run unbounded, on connections of
    // their own; the statements of requests and jobs are bounded on theirs.
    const migrating = openConnection({ ...location, statementTimeoutMs: 0, cacheLookups: false }, options);
    try {
      await migrate(migrating);
    } finally {
      await migrating.close();
    }
    return storeOn(openConnection(location, options));
  }
  const connection = openConnection(location, options);
  try {
    await migrate(connection);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return storeOn(connection);
}

/**
 * Listens for other processes' wakes of `job` at `location`, on a connection of its own, and
 * calls `onWake` for each; null on SQLite (no other process to hear from). Resolves once
 * listening or after the first failed try (it keeps trying).
 */
export async function listenForWakes(
  location: StoreLocation,
  job: WakeJob,
  onWake: () => void,
  log: Logger,
): Promise<WakeListener | null> {
  if (location.dialect !== 'postgres') return null;
  const listener = new PgWakeListener(location, job, onWake, log);
  await listener.start();
  return listener;
}
