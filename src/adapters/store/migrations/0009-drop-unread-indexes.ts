/** Migration 0009-drop-unread-indexes: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // No query reads these (the per-minute count reads sends by account and time, a
      // send is found by its id), yet every accepted send paid to insert into both.
      await db.schema.dropIndex('messages_account_time').execute();
      await db.schema.dropIndex('sends_account').execute();
    },
  };
}
