/**
 * Migration 0055-templates: its name is recorded in every store it ran on, so it never
 * changes.
 *
 * `templates`: an account's saved texts with named placeholders, names unique per account.
 * `contact_fields`: the fields of an account's contact number (`{"name": "Ayşe"}` as JSON),
 * one row per account and number whatever groups hold the number, read when a template is
 * filled (docs/decisions.md, "Templates").
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('templates'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('templates_account_name', ['account_id', 'name'])
        .execute();
      await db.schema
        .createTable('contact_fields')
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('number', 'text', (c) => c.notNull())
        .addColumn('fields', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('contact_fields_pk', ['account_id', 'number'])
        .execute();
    },
  };
}
