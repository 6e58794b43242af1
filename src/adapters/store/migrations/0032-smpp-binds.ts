/**
 * Migration 0032: the SMPP server's binds, for the whole cluster. `smpp_binds`: one row per
 * session bound to any process, with a lease the process renews while it lives, so a user's
 * `--max-binds` counts the binds of every process (a bind counts the live rows under a lock
 * of the user's row) and the provider console lists every process's sessions. A process
 * that dies leaves its rows to run out (`--lease-ms`).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('smpp_binds')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('smpp_user_id', 'integer', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('system_id', 'text', (c) => c.notNull())
        .addColumn('process', 'text', (c) => c.notNull())
        .addColumn('peer', 'text', (c) => c.notNull())
        .addColumn('bind_type', 'text', (c) => c.notNull())
        .addColumn('bound_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('smpp_binds_user').on('smpp_binds').columns(['smpp_user_id', 'expires_at']).execute();
      await db.schema.createIndex('smpp_binds_expires').on('smpp_binds').column('expires_at').execute();
    },
  };
}
