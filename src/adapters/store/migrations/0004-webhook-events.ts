/** Migration 0004-webhook-events: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // The outbox of webhook events: written in the transaction of the state change that
      // causes them, claimed and delivered by the webhook courier.
      await withId(db.schema.createTable('webhook_events'), dialect)
        .addColumn('event_id', 'text', (c) => c.notNull().unique())
        .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id'))
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('sms_id', 'bigint')
        .addColumn('status', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        // Automatic attempts made so far (manual redeliveries are recorded but not counted).
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        // Set while an attempt is in flight; also the token that lets only its holder record it.
        .addColumn('lease_until', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('done_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('webhook_events_due')
        .on('webhook_events')
        .columns(['state', 'next_attempt_at'])
        .execute();
      await db.schema.createIndex('webhook_events_key').on('webhook_events').columns(['key_id', 'id']).execute();
      await withId(db.schema.createTable('webhook_attempts'), dialect)
        .addColumn('event_ref', 'integer', (c) => c.notNull().references('webhook_events.id'))
        .addColumn('attempt_no', 'integer', (c) => c.notNull())
        .addColumn('manual', 'integer', (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_attempts_event')
        .on('webhook_attempts')
        .columns(['event_ref', 'attempt_no'])
        .execute();
    },
  };
}
