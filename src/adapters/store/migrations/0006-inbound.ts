/** Migration 0006-inbound: its name is recorded in every store it ran on, so it never changes. */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Which account receives messages sent to a number or short code of the provider's.
      await db.schema
        .createTable('inbound_routes')
        .addColumn('destination', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      // Ids come from the id space of sends and messages, so an sms_id names one thing.
      await db.schema
        .createTable('inbound_messages')
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('account_id', 'integer')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('destination', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('inbound_messages_account')
        .on('inbound_messages')
        .columns(['account_id', 'id'])
        .execute();
      // Additive payload fields of an event (sms.received carries the message).
      await db.schema.alterTable('webhook_events').addColumn('data', 'text').execute();
    },
  };
}
