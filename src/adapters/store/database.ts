/**
 * Opening a store: both dialects' connections, SQLite's speed machinery (the statement
 * cache, the thread write lock's dialect, the change counters the lookup caches read,
 * manual WAL checkpoints), PostgreSQL's pool and its broken-connection handling, and the
 * migrator. Why one file (393 lines): each of these is a few lines on the one `Db` handle
 * the rest of the store receives, and they must agree on it (the counters read the statement
 * cache's classification of each statement). The split is by dialect (`sqlite/`,
 * `postgres/`) with the speed machinery behind one factory: that is the store re-cut of
 * issue 20, which moves this file whole rather than in halves now.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { setImmediate, setTimeout as delay } from 'node:timers/promises';
import { Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, SqliteDriver, sql } from 'kysely';
import type { CompiledQuery, DatabaseConnection, DialectAdapter, Driver, MigrationProvider, QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations.js';
import { ThreadWriteLock } from './thread-write-lock.js';
import type { LockRole } from './thread-write-lock.js';
import type { Dialect } from './migrations.js';

export type { Dialect };

export type StoreLocation =
  /**
   * threadLock: the buffer of a ThreadWriteLock shared with the other threads of this
   * process on this file, and how this connection asks for it.
   *
   * checkpoints: 'auto' (SQLite's default) copies the WAL back into the database file
   * inside the commit that takes it past 1,000 pages, an fsync included: several
   * milliseconds in which that thread, and every thread waiting for the write lock, is held.
   * 'manual' leaves that to `Db.checkpoint`, which one thread of the process calls on a
   * timer, outside any transaction and the write lock (`serve` with delivery threads).
   */
  | { dialect: 'sqlite'; file: string; threadLock?: { buffer: SharedArrayBuffer; as: LockRole }; checkpoints?: 'auto' | 'manual' }
  | { dialect: 'postgres'; url: string; schema?: string; poolSize?: number };

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  /**
   * SQLite only: tells when cached lookups may have changed. `external` counts the commits,
   * by any connection, that wrote accounts, api_keys or sender_ids (the triggers of
   * migrations 0008 and 0010 count them in `lookup_version`): `lookups` those that changed
   * anything but a balance, `balances` those that changed a balance. Commits of messages and
   * events, which the delivery thread makes all the time, move neither. Of this process's
   * own writes, `keys` counts those to accounts or api_keys other than a balance charge or
   * top-up, `balances` those, and `senders` those to sender_ids.
   */
  changes?: { external(): ExternalChanges; keys(): number; senders(): number; balances(): number };
  /**
   * SQLite only: copies what the WAL holds back into the database file, as far as readers
   * allow (a passive checkpoint: it waits for no lock and writers go on meanwhile). Does
   * nothing while this connection is inside a transaction.
   */
  checkpoint?(): void;
}

// int8 (bigint) columns hold epoch milliseconds and balances: well inside 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

export function sqliteFileIn(dataDir: string): string {
  const dir = resolve(dataDir);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder (--data names the folder of the SQLite store)`);
  mkdirSync(dir, { recursive: true });
  return join(resolve(dataDir), 'haberci.sqlite');
}

/** What other connections changed: two counters that only move (see Db.changes). */
export interface ExternalChanges {
  lookups: number;
  balances: number;
}

/** A charge or top-up: one balance moved by an amount, nothing else of the account. */
const balanceWrite = /^\s*update\s+"accounts"\s+set\s+"(balance_main|balance_international)"\s*=\s*"\1"\s*[-+]\s*\?\s+where\b/i;
/** Writes to the tables a key lookup reads (Kysely quotes identifiers). */
const keyTableWrite = /^\s*(insert|update|delete|replace)\b[^;]*"(accounts|api_keys)"/i;
/** Writes to the table a sender ID check reads. */
const senderTableWrite = /^\s*(insert|update|delete|replace)\b[^;]*"sender_ids"/i;

/** Writes of this process to the tables behind cached lookups, counted as they run. */
interface WriteCounts {
  keys: number;
  senders: number;
  balances: number;
}

/** A statement that reports each execution: used for writes that must invalidate caches. */
function reporting(statement: SqliteStatement, onRun: () => void): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => {
      onRun();
      return statement.all(parameters);
    },
    run: (parameters) => {
      onRun();
      return statement.run(parameters);
    },
    iterate: (parameters) => {
      onRun();
      return statement.iterate(parameters);
    },
  };
}

/** SQLite's statements, prepared once per text, and whether each one writes. */
interface StatementCache extends SqliteDatabase {
  /** True when the statement of this text changes the database (BEGIN, COMMIT and reads do not). */
  writes(text: string): boolean;
}

/**
 * Kysely prepares every query afresh; parsing SQL is a large share of a query's cost on
 * SQLite, so prepared statements are kept by their text (bounded, cleared when full).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, writes: WriteCounts, limit = 2000): StatementCache {
  const cache = new Map<string, { statement: SqliteStatement; writes: boolean }>();
  const entry = (text: string): { statement: SqliteStatement; writes: boolean } => {
    let found = cache.get(text);
    if (!found) {
      const prepared = sqlite.prepare(text);
      const balances = balanceWrite.test(text);
      const keys = !balances && keyTableWrite.test(text);
      const senders = senderTableWrite.test(text);
      const statement =
        keys || senders || balances
          ? reporting(prepared, () => {
              if (keys) writes.keys += 1;
              if (senders) writes.senders += 1;
              if (balances) writes.balances += 1;
            })
          : prepared;
      // `reader` is true for INSERT ... RETURNING too: `readonly` tells a write.
      found = { statement, writes: !prepared.readonly };
      if (cache.size >= limit) cache.clear();
      cache.set(text, found);
    }
    return found;
  };
  return {
    close: () => sqlite.close(),
    prepare: (text) => entry(text).statement,
    writes: (text) => entry(text).writes,
  };
}

/** How long a statement or a transaction waits for SQLite's write lock before failing. */
const busyTimeoutMs = 5000;

function busyError(): Error {
  return Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
}

function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

/**
 * A write outside a transaction (autocommit) takes the threads' lock as a transaction does:
 * met by another thread's transaction, it would otherwise wait in SQLite's busy handler, its
 * thread's event loop stopped for as long as that transaction lasts (and for good when the
 * holder is on the same thread). Reads and statements inside a transaction go straight on.
 */
class LockingConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly statements: StatementCache,
    private readonly threads: ThreadWriteLock,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.sqlite.inTransaction || !this.statements.writes(query.sql)) return this.inner.executeQuery<R>(query);
    if (!(await this.threads.acquire(Date.now() + busyTimeoutMs))) throw busyError();
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      this.threads.release();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Transactions take SQLite's write lock when they begin (BEGIN IMMEDIATE). With a plain
 * BEGIN, a transaction that reads before it writes (a send batch reads balances, then
 * charges) fails with SQLITE_BUSY when another connection (the delivery thread, the admin
 * CLI, a second server) commits in between; taken up front, the lock is waited for instead.
 *
 * The wait does not block the thread: SQLite's own busy handler sleeps (1, 2, 5, 10 ms...)
 * with the event loop stopped, which would stall every HTTP request behind a lock the
 * delivery thread holds for a fraction of a millisecond. Threads of this process first take
 * the shared ThreadWriteLock (woken when it is released); then BEGIN IMMEDIATE is tried
 * without a timeout and, while another process holds the lock, tried again each turn of the
 * event loop (after 100 turns, each millisecond) until it is free or busy_timeout has passed.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  // Prepared once: `pragma()` and `exec()` parse their SQL on every call, and these run
  // three times a transaction.
  private readonly noWait: BetterSqlite3.Statement;
  private readonly wait: BetterSqlite3.Statement;
  private readonly begin: BetterSqlite3.Statement;
  private connection: LockingConnection | null = null;

  constructor(
    private readonly statements: StatementCache,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly threads: ThreadWriteLock,
  ) {
    super({ database: statements });
    this.noWait = sqlite.prepare('PRAGMA busy_timeout = 0');
    this.wait = sqlite.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    this.begin = sqlite.prepare('begin immediate');
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    this.connection ??= new LockingConnection(inner, this.sqlite, this.statements, this.threads);
    return this.connection;
  }

  override async beginTransaction(): Promise<void> {
    const deadline = Date.now() + busyTimeoutMs;
    if (!(await this.threads.acquire(deadline))) throw busyError();
    try {
      await this.beginImmediate(deadline);
    } catch (error) {
      this.threads.release();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } finally {
      this.threads.release();
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      this.threads.release();
    }
  }

  private async beginImmediate(deadline: number): Promise<void> {
    this.noWait.get();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          this.begin.run();
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error;
        }
        await (attempt < 100 ? setImmediate() : delay(1));
      }
    } finally {
      this.wait.get();
    }
  }
}

/**
 * SQLite runs DDL inside transactions, but Kysely's SQLite adapter says it cannot, so its
 * migrator ran each statement on its own. A crash between two statements of a migration
 * (or before the migration was recorded) left its tables made and it unrecorded, and every
 * later start failed on "table already exists" (8 of 40 `kill -9` during a first start).
 * Saying it can makes one run of migrations one transaction: all of it or none. Its BEGIN
 * IMMEDIATE is also the lock between processes migrating the same file at once.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly statements: StatementCache,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly threads: ThreadWriteLock,
  ) {
    super({ database: statements });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.statements, this.sqlite, this.threads);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** How long a query waits for a PostgreSQL connection before it fails. */
export const pgConnectTimeoutMs = 5000;

/**
 * `onConnectionError`: told of a PostgreSQL connection that broke outside a query (see the
 * pool's listeners below); nothing on SQLite.
 */
export function openDb(location: StoreLocation, onConnectionError: (error: Error) => void = () => undefined): Db {
  if (location.dialect === 'sqlite') {
    const sqlite = new BetterSqlite3(location.file);
    // WAL lets the admin CLI and readers work while the server writes; busy_timeout makes a
    // second process wait for the write lock instead of failing at once.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    sqlite.pragma('foreign_keys = ON');
    if (location.checkpoints === 'manual') sqlite.pragma('wal_autocheckpoint = 0');
    const checkpoint = sqlite.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    const writes: WriteCounts = { keys: 0, senders: 0, balances: 0 };
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(withStatementCache(sqlite, writes), sqlite, new ThreadWriteLock(location.threadLock?.buffer, location.threadLock?.as)) });
    // Prepared at first use: the table comes with migration 0008, after the store is opened.
    let lookupVersion: BetterSqlite3.Statement<[], ExternalChanges> | null = null;
    return {
      db,
      dialect: 'sqlite',
      close: () => db.destroy(),
      changes: {
        external: () => {
          const row = (lookupVersion ??= sqlite.prepare<[], ExternalChanges>('select n as lookups, balances from lookup_version')).get();
          return { lookups: Number(row?.lookups), balances: Number(row?.balances) };
        },
        keys: () => writes.keys,
        senders: () => writes.senders,
        balances: () => writes.balances,
      },
      checkpoint: () => {
        if (sqlite.open && !sqlite.inTransaction) checkpoint.get();
      },
    };
  }
  const options = location.schema ? `-c search_path=${location.schema}` : undefined;
  const pool = new pg.Pool({
    connectionString: location.url,
    max: location.poolSize ?? 10,
    options,
    // A database that is away makes a request wait this long for a connection, then fail
    // (answered SRV-ERR), rather than queue for ever.
    connectionTimeoutMillis: pgConnectTimeoutMs,
    // A connection whose peer vanished without a word (a failover, a dropped route) is
    // found by TCP keep-alive instead of hanging its next query.
    keepAlive: true,
  });
  // A connection that breaks while idle in the pool (the server restarted, an
  // administrator or pooler ended it, an idle timeout) is reported here. Without a
  // listener Node would end the process; the pool has already dropped that connection and
  // opens a new one at the next query, so it is only worth a line in the log.
  pool.on('error', onConnectionError);
  // The same for one that breaks while checked out between two queries (inside a
  // transaction, say): the next query fails, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

export class MigrationError extends Error {}

/** The schema unqualified names resolve to on PostgreSQL (the store's own). */
async function currentSchema(handle: Db): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(handle.db);
  return rows[0]?.schema ?? undefined;
}

/** Brings the store's schema up to date; `provider` is for tests (the store's own migrations by default). */
export async function migrate(handle: Db, provider: MigrationProvider = migrationProvider(handle.dialect)): Promise<void> {
  // Kysely looks for its migration tables in every schema of the database unless told
  // which one: a store in one schema would take another schema's tables for its own and
  // fail. They belong in the store's schema.
  const migrationTableSchema = handle.dialect === 'postgres' ? await currentSchema(handle) : undefined;
  const migrator = new Migrator({
    db: handle.db,
    provider,
    ...(migrationTableSchema !== undefined ? { migrationTableSchema } : {}),
  });
  // One run of migrations is one transaction on both dialects. Processes starting together
  // on an empty store race to create Kysely's own migration tables first, outside it; the
  // loser's attempt fails as a whole, and another attempt finds the work done.
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    if (attempt < 3) {
      await delay(100 * attempt);
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`store migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
