/**
 * Migration 0064-brands: its name is recorded in every store it ran on, so it never
 * changes (docs/decisions.md, "White label").
 *
 * `brands`: one row per reseller account that set its brand: the name, colour and support
 * contact its panel shows, its logo (base64 text, at most 256 KiB before encoding, with the
 * type found from its first bytes) and the host name its customers use. `host` is unique
 * (written lower-cased by the service); null while the provider has set none, and a null is
 * equal to no other in either dialect's unique index.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('brands')
        .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('host', 'text')
        .addColumn('color', 'text')
        .addColumn('support', 'text')
        .addColumn('logo', 'text')
        .addColumn('logo_type', 'text')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('brands_host').on('brands').column('host').unique().execute();
    },
  };
}
