import type BetterSqlite3 from 'better-sqlite3';
import { setImmediate, setTimeout as delay } from 'node:timers/promises';
import { SqliteDriver } from 'kysely';
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type { StatementCache } from './statement-cache.js';
import type { ThreadWriteLock } from './thread-write-lock.js';

/** How long a statement or a transaction waits for SQLite's write lock before failing. */
export const busyTimeoutMs = 5000;

/**
 * Whether writes of this connection fail for want of disk (SQLITE_FULL, or an I/O error
 * writing): set by a failed write or commit, cleared by the next one that succeeds, and
 * forgotten `memoryMs` after the last failure (a process taken out of rotation gets no
 * writes to prove the disk has room again). What /readyz reports (the store's health), so a
 * full disk takes the process out of rotation while writes fail.
 */
export class WriteFaults {
  private since: number | null = null;
  private last = 0;
  private code = '';

  constructor(private readonly memoryMs = 10_000) {}

  failed(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !(code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'))) return;
    this.last = Date.now();
    this.since ??= this.last;
    this.code = code;
  }

  committed(): void {
    this.since = null;
  }

  /** Null while writes go through; else why they fail, in a few words. */
  fault(): string | null {
    if (this.since === null) return null;
    if (Date.now() - this.last > this.memoryMs) {
      this.since = null;
      return null;
    }
    const what = this.code === 'SQLITE_FULL' ? 'the disk is full' : `an I/O error (${this.code})`;
    return `writes fail since ${new Date(this.since).toISOString()}: ${what}`;
  }
}

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
    private readonly faults: WriteFaults,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.statements.writes(query.sql)) return this.inner.executeQuery<R>(query);
    if (this.sqlite.inTransaction) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        this.faults.failed(error);
        throw error;
      }
    }
    if (!(await this.threads.acquire(Date.now() + busyTimeoutMs))) throw busyError();
    try {
      const result = await this.inner.executeQuery<R>(query);
      this.faults.committed();
      return result;
    } catch (error) {
      this.faults.failed(error);
      throw error;
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
  /** Whether this connection holds the threads' lock for a transaction (given back once). */
  private holding = false;

  constructor(
    private readonly statements: StatementCache,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly threads: ThreadWriteLock,
    private readonly faults: WriteFaults,
  ) {
    super({ database: statements });
    this.noWait = sqlite.prepare('PRAGMA busy_timeout = 0');
    this.wait = sqlite.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    this.begin = sqlite.prepare('begin immediate');
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    this.connection ??= new LockingConnection(inner, this.sqlite, this.statements, this.threads, this.faults);
    return this.connection;
  }

  override async beginTransaction(): Promise<void> {
    const deadline = Date.now() + busyTimeoutMs;
    if (!(await this.threads.acquire(deadline))) throw busyError();
    this.holding = true;
    try {
      await this.beginImmediate(deadline);
    } catch (error) {
      this.releaseLock();
      throw error;
    }
  }

  /**
   * A COMMIT that fails (SQLITE_FULL: the disk is full; an I/O error) may leave the
   * transaction open, or SQLite may have rolled it back already: the lock is kept while it
   * is open, for the ROLLBACK that follows, and given back (once) when it is not.
   */
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
      this.faults.committed();
    } catch (error) {
      this.faults.failed(error);
      throw error;
    } finally {
      if (!this.sqlite.inTransaction) this.releaseLock();
    }
  }

  /**
   * Rolls back what is still open: after SQLITE_FULL or an I/O error SQLite has often rolled
   * the transaction back itself, and a ROLLBACK then would fail with "cannot rollback - no
   * transaction is active", hiding the error that mattered. The lock is given back whatever
   * happens, and only once.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
    } finally {
      this.releaseLock();
    }
  }

  private releaseLock(): void {
    if (!this.holding) return;
    this.holding = false;
    this.threads.release();
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
