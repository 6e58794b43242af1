/** Migration 0013-webhook-retry-schedule: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // A key's own delays between webhook attempts (key --webhook-retry-schedule),
      // milliseconds comma-separated; null keeps the default schedule.
      await db.schema.alterTable('api_keys').addColumn('webhook_retry_schedule', 'text').execute();
    },
  };
}
