/**
 * Migration 0025: customers over SMPP. `smpp_users`: the SMPP accounts
 * (system_id and a hashed password) each tied to one API key, with their bind limits.
 * `smpp_receipts`: one row per message accepted over SMPP with registered_delivery, until
 * its receipt is acknowledged by the customer's deliver_sm_resp (the receipts kept for a
 * user who is not bound; docs/smpp.md, "Customers over SMPP").
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('smpp_users'), dialect)
        .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id'))
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('system_id', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('max_binds', 'integer', (c) => c.notNull())
        .addColumn('window_size', 'integer', (c) => c.notNull())
        .addColumn('max_submits_per_second', 'integer', (c) => c.notNull())
        .addColumn('disabled_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('smpp_users_account').on('smpp_users').columns(['account_id', 'id']).execute();
      await db.schema
        .createTable('smpp_receipts')
        .addColumn('message_id', 'bigint', (c) => c.primaryKey())
        .addColumn('smpp_user_id', 'integer', (c) => c.notNull())
        .addColumn('source_addr', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('sent_at', 'bigint')
        .execute();
      // The receipts still owed to a user, oldest first; acknowledged rows leave the index.
      await sql`create index smpp_receipts_owed on smpp_receipts (smpp_user_id, message_id) where sent_at is null`.execute(
        db,
      );
      await db.schema.createIndex('smpp_receipts_created').on('smpp_receipts').column('created_at').execute();
    },
  };
}
