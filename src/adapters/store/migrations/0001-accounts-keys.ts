/** Migration 0001-accounts-keys: its name is recorded in every store it ran on, so it never changes. */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('accounts'), dialect)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('Active'))
        // The balance can never go negative: the store refuses it, whatever the code does.
        .addColumn('balance_main', 'bigint', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`balance_main >= 0`),
        )
        .addColumn('balance_international', 'bigint', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`balance_international >= 0`),
        )
        .addColumn('per_minute_limit', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('otp_brand', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('ip_allow', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('global_sending', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await withId(db.schema.createTable('ledger'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('delta', 'bigint', (c) => c.notNull())
        .addColumn('balance_after', 'bigint', (c) => c.notNull().check(sql`balance_after >= 0`))
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('reference', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ledger_account').on('ledger').columns(['account_id', 'id']).execute();
      await withId(db.schema.createTable('sender_ids'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sender_ids_account').on('sender_ids').columns(['account_id', 'title']).execute();
      await withId(db.schema.createTable('api_keys'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_hint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('ip_allow', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('hourly_limit', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('daily_limit', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('monthly_limit', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expires_on', 'text')
        .addColumn('valid_until', 'bigint')
        .addColumn('replaced_by', 'integer')
        .addColumn('webhook_url', 'text')
        .addColumn('webhook_secret', 'text')
        .addColumn('webhook_attempts', 'integer', (c) => c.notNull().defaultTo(5))
        .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('key_usage')
        .addColumn('key_id', 'integer', (c) => c.primaryKey().references('api_keys.id'))
        .addColumn('hour_bucket', 'text', (c) => c.notNull())
        .addColumn('hour_count', 'integer', (c) => c.notNull())
        .addColumn('day_bucket', 'text', (c) => c.notNull())
        .addColumn('day_count', 'integer', (c) => c.notNull())
        .addColumn('month_bucket', 'text', (c) => c.notNull())
        .addColumn('month_count', 'integer', (c) => c.notNull())
        .execute();
    },
  };
}
