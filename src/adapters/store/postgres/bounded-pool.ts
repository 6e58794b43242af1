/**
 * A pool whose statements are bounded in time, for Kysely. PostgreSQL cancels a statement
 * that runs past `statement_timeout` itself; this covers the server that cannot be heard
 * (a route or proxy that stops forwarding without closing): pg's `query_timeout` fails the
 * query on the client side, and the connection it was on is then broken for good (its
 * reply may still come, out of turn), so every later query on it fails at once (the
 * ROLLBACK of its transaction included) and it is destroyed when released, never reused.
 */
import type pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

class BoundedClient implements PostgresPoolClient {
  private broken: Error | null = null;

  constructor(private readonly client: pg.PoolClient) {}

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
    if (this.broken) return Promise.reject(this.broken);
    const pending = this.client.query(sqlOrCursor, parameters as unknown[]) as unknown as Promise<
      PostgresQueryResult<R>
    >;
    return pending.catch((error: unknown) => {
      if (error instanceof Error && error.message === 'Query read timeout') {
        this.broken = new Error('the store did not answer a statement in time');
      }
      throw error;
    });
  }

  release(): void {
    // With an error, the pool ends the connection instead of keeping it.
    this.client.release(this.broken ?? undefined);
  }
}

/** `pool` as Kysely's PostgresDialect takes it, its connections discarded after a client-side statement timeout. */
export function boundedPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => new BoundedClient(await pool.connect()),
    end: () => pool.end(),
  };
}
