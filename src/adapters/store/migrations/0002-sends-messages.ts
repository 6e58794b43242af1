/** Migration 0002-sends-messages: its name is recorded in every store it ran on, so it never changes. */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // One id space for report (send) ids and message ids, so an id names one thing:
      // /sms/status can tell a report id from a message id and refuse it.
      if (dialect === 'postgres') {
        await sql`CREATE SEQUENCE haberci_ids`.execute(db);
      } else {
        await db.schema
          .createTable('id_counter')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('next_id', 'bigint', (c) => c.notNull())
          .execute();
        await sql`INSERT INTO id_counter (name, next_id) VALUES ('ids', 1)`.execute(db);
      }
      await db.schema
        .createTable('sends')
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('sender', 'text', (c) => c.notNull())
        .addColumn('text', 'text')
        .addColumn('lang', 'integer', (c) => c.notNull())
        .addColumn('content_type', 'integer', (c) => c.notNull())
        .addColumn('scheduled_at', 'bigint')
        .addColumn('sandbox', 'integer', (c) => c.notNull())
        .addColumn('total_numbers', 'integer', (c) => c.notNull())
        .addColumn('invalid_numbers', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked_numbers', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sms_cost', 'integer', (c) => c.notNull())
        .addColumn('pending_recipients', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sends_account').on('sends').columns(['account_id', 'id']).execute();
      await db.schema
        .createTable('messages')
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('send_id', 'bigint', (c) => c.notNull().references('sends.id'))
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('key_id', 'integer', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('text', 'text')
        .addColumn('sms_count', 'integer', (c) => c.notNull())
        .addColumn('operator', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('priority', 'integer', (c) => c.notNull())
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_until', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('carrier', 'text')
        .addColumn('submitted_at', 'bigint')
        .addColumn('done_at', 'bigint')
        .addColumn('detail', 'text')
        .addColumn('sandbox', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('messages_due').on('messages').columns(['state', 'priority', 'due_at']).execute();
      await db.schema
        .createIndex('messages_account_time')
        .on('messages')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema.createIndex('messages_send').on('messages').columns(['send_id', 'id']).execute();
      await db.schema
        .createTable('message_parts')
        .addColumn('carrier_message_id', 'text', (c) => c.primaryKey())
        .addColumn('message_id', 'bigint', (c) => c.notNull())
        .addColumn('part_no', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('done_at', 'bigint')
        .execute();
      await db.schema.createIndex('message_parts_message').on('message_parts').columns(['message_id']).execute();
      // Receipts that arrive before the submit response that names their message.
      await db.schema
        .createTable('unmatched_reports')
        .addColumn('carrier_message_id', 'text', (c) => c.primaryKey())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('done_at', 'bigint')
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('idem_key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('response', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'idem_key'])
        .execute();
    },
  };
}
