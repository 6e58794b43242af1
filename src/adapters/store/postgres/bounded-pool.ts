/**
 * A pool whose statements are bounded in time, for Kysely. PostgreSQL cancels a statement
 * that runs past `statement_timeout` itself; this covers the server that cannot be heard
 * (a route or proxy that stops forwarding without closing): pg's `query_timeout` fails the
 * query on the client side, and the connection it was on is then broken for good (its
 * reply may still come, out of turn), so every later query on it fails at once (the
 * ROLLBACK of its transaction included) and it is destroyed when released, never reused.
 *
 * What failed is said by the error (util/store-faults.ts): `StoreUnavailable` when nothing
 * can have been committed (no connection, or a statement inside a transaction whose COMMIT
 * was never sent), `StoreOutcomeUnknown` when a COMMIT (or a write outside a transaction)
 * was sent and not answered. The first time-out also tells the pool's `Silence`
 * (silence.ts): until the store answers again, connections are refused at once.
 */
import type pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { StoreOutcomeUnknown, StoreUnavailable } from '../../../util/store-faults.js';
import { Silence } from './silence.js';
import type { SilenceEvents } from './silence.js';

const readTimeout = 'Query read timeout';

/** Whether a statement's time bound ran out (the server's cancel, or the client's time-out). */
export function statementTimedOut(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { code?: unknown }).code === '57014') return true;
  const cause = error.cause;
  return error.message === readTimeout || (cause instanceof Error && cause.message === readTimeout);
}

/**
 * Whether a statement's failure leaves its connection unusable, its outcome unknown: no
 * answer (the client's time-out), the connection ended or broke, or the server ending the
 * session (class 08, 57P: an administrator's or a shutdown's FATAL). A server's error of any
 * other kind (a constraint, a cancel) is an answer: the connection stays.
 */
function connectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof (error as { severity?: unknown }).severity === 'string' && typeof code === 'string')
    return code.startsWith('08') || code.startsWith('57P');
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNRESET, EPIPE, ETIMEDOUT ...
  return (
    error.message === readTimeout ||
    error.message.startsWith('Connection terminated') ||
    error.message.includes('is not queryable')
  );
}

/** Statements that write nothing: one of them lost outside a transaction leaves nothing unknown. */
const writesNothing = new Set([
  'select',
  'begin',
  'start',
  'rollback',
  'rollback to',
  'savepoint',
  'release',
  'set',
  'show',
]);

/** A statement's first word; `rollback to` (a savepoint's) told apart from the transaction's. */
function verbOf(sql: string): string {
  const verb = (/^\s*([a-z]+)/i.exec(sql)?.[1] ?? '').toLowerCase();
  return verb === 'rollback' && /^\s*rollback\s+to\b/i.test(sql) ? 'rollback to' : verb;
}

class BoundedClient implements PostgresPoolClient {
  private broken: Error | null = null;
  private inTransaction = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly silence: Silence,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') {
      // Kysely's streaming (a cursor): passed through as it is.
      const raw = this.client as unknown as { query(cursor: PostgresCursor<R>): PostgresCursor<R> };
      return raw.query(sqlOrCursor);
    }
    // A COMMIT on a broken connection is never sent: it fails with what broke it.
    if (this.broken) return Promise.reject(this.broken);
    const verb = verbOf(sqlOrCursor);
    const pending = this.client.query(sqlOrCursor, parameters as unknown[]) as unknown as Promise<
      PostgresQueryResult<R>
    >;
    return pending.then(
      (result) => {
        this.track(verb);
        return result;
      },
      (error: unknown) => {
        const failure = this.failed(verb, error);
        this.track(verb);
        throw failure;
      },
    );
  }

  private track(verb: string): void {
    if (verb === 'begin' || verb === 'start') this.inTransaction = true;
    else if (verb === 'commit' || verb === 'rollback') this.inTransaction = false;
  }

  /** What a failed statement is thrown as; a lost connection is broken for every later query. */
  private failed(verb: string, error: unknown): unknown {
    if (!connectionLost(error)) return error;
    if (error instanceof Error && error.message === readTimeout) this.silence.heardNothing();
    const unknown = verb === 'commit' || (!this.inTransaction && !writesNothing.has(verb));
    this.broken = unknown
      ? new StoreOutcomeUnknown('the store did not answer a commit: whether it was made is unknown', { cause: error })
      : new StoreUnavailable('the store did not answer a statement: nothing of it was committed', { cause: error });
    return this.broken;
  }

  release(): void {
    // With an error, the pool ends the connection instead of keeping it.
    this.client.release(this.broken ?? undefined);
  }
}

/**
 * `pool` as Kysely's PostgresDialect takes it: its connections discarded after a lost
 * statement, refused at once while the store is silent (`events` hears when it falls
 * silent and when it answers again).
 */
export function boundedPool(pool: pg.Pool, events: SilenceEvents = {}): PostgresPool {
  const silence = new Silence(pool, events);
  return {
    connect: async () => new BoundedClient(await silence.checkout(), silence),
    end: async () => {
      silence.stop();
      await pool.end();
    },
  };
}
