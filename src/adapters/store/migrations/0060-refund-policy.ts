/**
 * Migration 0060-refund-policy: its name is recorded in every store it ran on, so it never
 * changes (docs/decisions.md, "Refunds of undelivered messages").
 *
 * - `accounts.refund_undelivered` (0 or 1, default 0): credit of a message that ends failed
 *   (by a receipt, or rejected at submit) or expired is given back, once, by the refund
 *   primitive (0057's `refunds`, key `message:<id>`), in the transaction of the receipt.
 *   Off by default: the spec charges a message when it is accepted. On a reseller's customer
 *   it says whether the reseller passes on what the provider gives back (docs/resellers.md).
 *
 * The key lookup does not read it, so the lookup caches' change signal need not watch it:
 * receipts read it with the rows they settle.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('accounts')
        .addColumn('refund_undelivered', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
