/**
 * A store's connection: the Kysely handle every part of the store runs on, with what its
 * dialect adds (SQLite: the change counters behind the lookup caches, manual checkpoints).
 * Opened by the dialect's own file in `sqlite/` or `postgres/` (`openConnection` in
 * open-store.ts picks it).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './store-location.js';

/** What other connections changed: two counters that only move (SQLite's `lookup_version`, or what PostgreSQL's LISTEN heard). */
export interface ExternalChanges {
  /** Commits that wrote accounts (other than a balance), api_keys or sender_ids. */
  lookups: number;
  /** Commits that changed a balance. */
  balances: number;
}

export interface StoreConnection {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  /**
   * The commits, by any connection (this one, another thread, the admin CLI, another
   * process), that wrote the tables behind the lookup caches. SQLite: counted by the
   * triggers of migrations 0008 and 0010 in `lookup_version`. PostgreSQL (a location with
   * `cacheLookups`): heard through the NOTIFYs of migration 0021's triggers
   * (postgres/lookup-changes.ts). Commits of messages and events, which the delivery
   * thread makes all the time, move neither counter. Absent: no lookup caches.
   */
  externalChanges?(): ExternalChanges;
  /**
   * SQLite only: copies what the WAL holds back into the database file, as far as readers
   * allow (a passive checkpoint: it waits for no lock and writers go on meanwhile). Does
   * nothing while this connection is inside a transaction.
   */
  checkpoint?(): void;
  /**
   * SQLite only: why this connection's writes fail (the disk is full, an I/O error), or null
   * while they go through; cleared by the next write that succeeds.
   */
  writeFault?(): string | null;
  /** SQLite only: how long the threads' write lock has been held without changing hands (0: free). */
  writeLockHeldMs?(): number;
}
