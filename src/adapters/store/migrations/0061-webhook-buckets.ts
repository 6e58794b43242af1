/**
 * Migration 0061-webhook-buckets: its name is recorded in every store it ran on, so it
 * never changes (docs/decisions.md, "Webhook buckets").
 *
 * A key's bucket size (`key --webhook-batch`, 1 to 100; 1: one event a request) and how
 * long a bucket that is not full waits for more events (`--webhook-batch-wait-ms`).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('api_keys')
        .addColumn('webhook_batch', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .alterTable('api_keys')
        .addColumn('webhook_batch_wait_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
