/**
 * Migration 0019 (issue 24, retention): the two tables without time-ordered ids that
 * retention empties of old rows get an index on their time, so that a batch of old rows is
 * found without reading the whole table. (Messages, sends, webhook events and inbound
 * messages are walked by their ids, which grow with time: no index needed.)
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('idempotency_keys_time').on('idempotency_keys').column('created_at').execute();
      await db.schema.createIndex('unmatched_reports_time').on('unmatched_reports').column('received_at').execute();
    },
  };
}
