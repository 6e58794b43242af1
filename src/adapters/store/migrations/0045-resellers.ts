/**
 * Migration 0045-resellers: its name is recorded in every store it ran on, so it never
 * changes (docs/decisions.md, "Resellers: one level, prepaid credit moved down").
 *
 * - `accounts.reseller` (0 or 1): the provider made the account a reseller, which may own
 *   customer accounts.
 * - `accounts.parent_id`: the reseller that owns a customer account (null: the provider's
 *   own). One level only: a reseller has no parent and a customer is no reseller; the
 *   service keeps that under the parent's row lock. The foreign key keeps a customer from
 *   pointing at an account that does not exist.
 * - `accounts_parent` on (parent_id, id): a reseller's customers in id order, a page at a
 *   time, without a scan of every account.
 *
 * Neither column is read by the key lookup, so the lookup caches' change signal (0033's
 * triggers) need not watch them: a send never walks the hierarchy.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('accounts')
        .addColumn('reseller', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('accounts')
        .addColumn('parent_id', 'integer', (c) => c.references('accounts.id'))
        .execute();
      await db.schema.createIndex('accounts_parent').on('accounts').columns(['parent_id', 'id']).execute();
    },
  };
}
