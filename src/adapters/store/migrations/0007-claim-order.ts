/** Migration 0007-claim-order: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // The dispatcher claims queued messages in (priority, due_at, id) order. Without id
      // in the index (id is not SQLite's rowid), every claim sorted all due messages in a
      // temporary B-tree, a cost that grew with the queue; with it, a claim reads the
      // first rows of the index and stops at its limit.
      await db.schema.dropIndex('messages_due').execute();
      await db.schema
        .createIndex('messages_due')
        .on('messages')
        .columns(['state', 'priority', 'due_at', 'id'])
        .execute();
    },
  };
}
