import type BetterSqlite3 from 'better-sqlite3';
import { setImmediate, setTimeout as delay } from 'node:timers/promises';
import { SqliteDriver } from 'kysely';
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type { StatementCache } from './statement-cache.js';
import type { ThreadWriteLock } from './thread-write-lock.js';

/** How long a statement or a transaction waits for SQLite's write lock before failing. */
export const busyTimeoutMs = 5000;

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
 * charges) fails with SQLITE_BUSY when another connection (the job thread, the admin
 * CLI, a second server) commits in between; taken up front, the lock is waited for instead.
 *
 * The wait does not block the thread: SQLite's own busy handler sleeps (1, 2, 5, 10 ms...)
 * with the event loop stopped, which would stall every HTTP request behind a lock the
 * job thread holds for a fraction of a millisecond. Threads of this process first take
 * the shared ThreadWriteLock (woken when it is released); then BEGIN IMMEDIATE is tried
 * without a timeout and, while another process holds the lock, tried again each turn of the
 * event loop (after 100 turns, each millisecond) until it is free or busy_timeout has passed.
 */
export class ImmediateSqliteDriver extends SqliteDriver {
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
