/** Migration 0011-webhook-event-selection: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // The events a key's webhook takes (key --webhook-events); null keeps every event.
      await db.schema.alterTable('api_keys').addColumn('webhook_events', 'text').execute();
    },
  };
}
