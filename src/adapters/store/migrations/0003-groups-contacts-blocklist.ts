/** Migration 0003-groups-contacts-blocklist: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('contact_groups'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      // Group names are unique per account: the index decides between racing requests.
      await db.schema
        .createIndex('contact_groups_account_name')
        .unique()
        .on('contact_groups')
        .columns(['account_id', 'name'])
        .execute();
      await db.schema
        .createTable('contacts')
        .addColumn('group_id', 'integer', (c) => c.notNull().references('contact_groups.id').onDelete('cascade'))
        .addColumn('number', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('contacts_pk', ['group_id', 'number'])
        .execute();
      // One entry per subscriber (the last ten digits) per account; `number` is 905XXXXXXXXX.
      await db.schema
        .createTable('blocked_numbers')
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('subscriber', 'text', (c) => c.notNull())
        .addColumn('number', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('blocked_numbers_pk', ['account_id', 'subscriber'])
        .execute();
    },
  };
}
