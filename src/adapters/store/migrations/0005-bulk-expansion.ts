/** Migration 0005-bulk-expansion: its name is recorded in every store it ran on, so it never changes. */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Bulk and scheduled sends keep their recipients as one list until they are due, then
      // a worker writes them out as messages a chunk per transaction.
      await db.schema
        .alterTable('sends')
        .addColumn('expanded_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('sends').addColumn('expand_lease_until', 'bigint').execute();
      await db.schema
        .alterTable('sends')
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sends_account_time').on('sends').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createIndex('sends_pending')
        .on('sends')
        .columns(['expanded_count', 'scheduled_at'])
        .where(sql.ref('pending_recipients'), 'is not', null)
        .execute();
    },
  };
}
