/**
 * Migration 0063-cancel-settling: its name is recorded in every store it ran on, so it
 * never changes (docs/decisions.md, "Campaign controls").
 *
 * A cancel answers at once however large the send: it gives back the credit of every
 * message it stops, cancels the first of them in its transaction and leaves the rest to the
 * dispatcher's expander, a chunk at a time. `cancel_settlements` has a row per send still
 * being settled, with the credit given back ahead for its messages not yet cancelled, by
 * bucket; a chunk's refunds use it up before they move a balance. A table of its own keeps
 * the send paths' rows as they were.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('cancel_settlements')
        .addColumn('send_id', 'bigint', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('prepaid_main', 'integer', (c) => c.notNull())
        .addColumn('prepaid_international', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
