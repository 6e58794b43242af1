import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreConnection } from '../connection.js';
import type { StoreLocation } from '../store-location.js';
import type { Logger } from 'pino';
import { PgLookupChanges } from './lookup-changes.js';
import { postgresClientConfig } from './client-config.js';
import { boundedPool } from './bounded-pool.js';

// int8 (bigint) columns hold epoch milliseconds and balances: well inside 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

/** How long a query waits for a PostgreSQL connection before it fails. */
export const pgConnectTimeoutMs = 5000;

/** How long a statement may take when the location says nothing (`--store-statement-timeout-ms`'s default). */
export const pgStatementTimeoutMs = 10_000;

/**
 * The time bounds of a connection's statements, `ms` each (none with 0: migrations).
 * PostgreSQL cancels a statement past `statement_timeout` (the connection stays usable);
 * `query_timeout` fails it on the client a second later when no answer came at all (the
 * server or the route to it is silent), and the connection is discarded (bounded-pool.ts).
 * `idle_in_transaction_session_timeout` makes the server end a session left inside a
 * transaction for `ms`: a client that gave up on a silent server did so at least a second
 * after the server last answered it, so its transaction is ended by the server before the
 * client answered SRV-ERR, and a COMMIT still held on the way cannot commit it later. The
 * first time-out also makes the pool refuse connections until the store answers again
 * (silence.ts).
 */
function statementBounds(ms: number): pg.ClientConfig {
  if (ms === 0) return {};
  return { statement_timeout: ms, query_timeout: ms + 1000, idle_in_transaction_session_timeout: ms };
}

/**
 * Opens a PostgreSQL store: a pool in the store's schema, broken connections reported to
 * `onConnectionError`; with `cacheLookups`, the change signal of the lookup caches too (a
 * LISTEN connection, opened at the first lookup, its losses told to `log`).
 */
export function openPostgres(
  location: Extract<StoreLocation, { dialect: 'postgres' }>,
  onConnectionError: (error: Error) => void,
  log: Logger,
): StoreConnection {
  const pool = new pg.Pool({
    ...postgresClientConfig(location),
    ...statementBounds(location.statementTimeoutMs ?? pgStatementTimeoutMs),
    max: location.poolSize ?? 10,
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
  // A silent store is said once when it falls silent and once when it answers again: the
  // requests refused meanwhile are in the access log (503 SRV-ERR).
  const silence = {
    silent: () => log.warn('the store does not answer: requests are refused (503 SRV-ERR) until it answers again'),
    heard: (silentMs: number) => log.info({ silentMs }, 'the store answers again'),
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: boundedPool(pool, silence) }) });
  if (!location.cacheLookups) return { db, dialect: 'postgres', close: () => db.destroy() };
  const changes = new PgLookupChanges(location, log);
  return {
    db,
    dialect: 'postgres',
    externalChanges: () => changes.read(),
    close: async () => {
      await changes.stop();
      await db.destroy();
    },
  };
}
