/**
 * Migration 0057-campaign-controls: its name is recorded in every store it ran on, so it
 * never changes (docs/decisions.md, "Campaign controls").
 *
 * - `sends.control`: null while a send runs; `paused` (held until resume) or `cancelled`.
 *   Its messages carry the hold themselves (state `paused`, which no claim reads; `cancelled`,
 *   final), so the claims of the dispatcher stay on the index of queued messages as they were.
 * - `refunds`: one row per credit given back, by its key (`message:<id>`): the primary key
 *   makes a refund happen once whatever policy (a cancel, later a failed or expired message)
 *   asks for it, and whatever races with it.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sends').addColumn('control', 'text').execute();
      await db.schema
        .createTable('refunds')
        .addColumn('refund_key', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('refunds_created').on('refunds').column('created_at').execute();
    },
  };
}
