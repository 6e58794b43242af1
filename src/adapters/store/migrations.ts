/**
 * Every migration of the schema, in order, for both dialects. Why one file (346 lines): the
 * migrator takes one record in name order and a new migration appends to it, so the order is
 * read here and nowhere else; each migration is a short block with a comment on why. One
 * file per migration comes with the store re-cut (issue 20), with the same names.
 */
import { sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider, CreateTableBuilder } from 'kysely';
import { panelUsersMigration } from './panel-migration.js';
import { panelCountsMigration } from './panel-counts-migration.js';

export type Dialect = 'sqlite' | 'postgres';

/** An auto-increment integer primary key in either dialect. */
function withId<T extends string>(table: CreateTableBuilder<T>, dialect: Dialect): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-accounts-keys': {
      async up(db: Kysely<unknown>): Promise<void> {
        await withId(db.schema.createTable('accounts'), dialect)
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull().defaultTo('Active'))
          // The balance can never go negative: the store refuses it, whatever the code does.
          .addColumn('balance_main', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`balance_main >= 0`))
          .addColumn('balance_international', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`balance_international >= 0`))
          .addColumn('per_minute_limit', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('otp_brand', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('ip_allow', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('global_sending', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await withId(db.schema.createTable('ledger'), dialect)
          .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
          .addColumn('bucket', 'text', (c) => c.notNull())
          .addColumn('delta', 'bigint', (c) => c.notNull())
          .addColumn('balance_after', 'bigint', (c) => c.notNull().check(sql`balance_after >= 0`))
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('reference', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ledger_account').on('ledger').columns(['account_id', 'id']).execute();
        await withId(db.schema.createTable('sender_ids'), dialect)
          .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('sender_ids_account').on('sender_ids').columns(['account_id', 'title']).execute();
        await withId(db.schema.createTable('api_keys'), dialect)
          .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('key_hint', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('permissions', 'text', (c) => c.notNull())
          .addColumn('ip_allow', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('hourly_limit', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('daily_limit', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('monthly_limit', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('expires_on', 'text')
          .addColumn('valid_until', 'bigint')
          .addColumn('replaced_by', 'integer')
          .addColumn('webhook_url', 'text')
          .addColumn('webhook_secret', 'text')
          .addColumn('webhook_attempts', 'integer', (c) => c.notNull().defaultTo(5))
          .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('key_usage')
          .addColumn('key_id', 'integer', (c) => c.primaryKey().references('api_keys.id'))
          .addColumn('hour_bucket', 'text', (c) => c.notNull())
          .addColumn('hour_count', 'integer', (c) => c.notNull())
          .addColumn('day_bucket', 'text', (c) => c.notNull())
          .addColumn('day_count', 'integer', (c) => c.notNull())
          .addColumn('month_bucket', 'text', (c) => c.notNull())
          .addColumn('month_count', 'integer', (c) => c.notNull())
          .execute();
      },
    },
    '0002-sends-messages': {
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
        await db.schema.createIndex('messages_account_time').on('messages').columns(['account_id', 'created_at']).execute();
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
    },
    '0003-groups-contacts-blocklist': {
      async up(db: Kysely<unknown>): Promise<void> {
        await withId(db.schema.createTable('contact_groups'), dialect)
          .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        // Group names are unique per account: the index decides between racing requests.
        await db.schema.createIndex('contact_groups_account_name').unique().on('contact_groups').columns(['account_id', 'name']).execute();
        await db.schema
          .createTable('contacts')
          .addColumn('group_id', 'integer', (c) => c.notNull().references('contact_groups.id').onDelete('cascade'))
          .addColumn('number', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('contacts_pk', ['group_id', 'number'])
          .execute();
        // One entry per subscriber (the last ten digits) per account; `number` is 905XXXXXXXXX.
        await db.schema
          .createTable('blocked_numbers')
          .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
          .addColumn('subscriber', 'text', (c) => c.notNull())
          .addColumn('number', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('blocked_numbers_pk', ['account_id', 'subscriber'])
          .execute();
      },
    },
    '0004-webhook-events': {
      async up(db: Kysely<unknown>): Promise<void> {
        // The outbox of webhook events: written in the transaction of the state change that
        // causes them, claimed and delivered by the webhook worker.
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
        await db.schema.createIndex('webhook_events_due').on('webhook_events').columns(['state', 'next_attempt_at']).execute();
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
        await db.schema.createIndex('webhook_attempts_event').on('webhook_attempts').columns(['event_ref', 'attempt_no']).execute();
      },
    },
    '0005-bulk-expansion': {
      async up(db: Kysely<unknown>): Promise<void> {
        // Bulk and scheduled sends keep their recipients as one list until they are due, then
        // a worker writes them out as messages a chunk per transaction.
        await db.schema.alterTable('sends').addColumn('expanded_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('sends').addColumn('expand_lease_until', 'bigint').execute();
        await db.schema.alterTable('sends').addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.createIndex('sends_account_time').on('sends').columns(['account_id', 'created_at']).execute();
        await db.schema.createIndex('sends_pending').on('sends').columns(['expanded_count', 'scheduled_at']).where(sql.ref('pending_recipients'), 'is not', null).execute();
      },
    },
    '0006-inbound': {
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
        await db.schema.createIndex('inbound_messages_account').on('inbound_messages').columns(['account_id', 'id']).execute();
        // Additive payload fields of an event (sms.received carries the message).
        await db.schema.alterTable('webhook_events').addColumn('data', 'text').execute();
      },
    },
    '0007-claim-order': {
      async up(db: Kysely<unknown>): Promise<void> {
        // The dispatcher claims queued messages in (priority, due_at, id) order. Without id
        // in the index (id is not SQLite's rowid), every claim sorted all due messages in a
        // temporary B-tree, a cost that grew with the queue; with it, a claim reads the
        // first rows of the index and stops at its limit.
        await db.schema.dropIndex('messages_due').execute();
        await db.schema.createIndex('messages_due').on('messages').columns(['state', 'priority', 'due_at', 'id']).execute();
      },
    },
    '0008-lookup-version': {
      async up(db: Kysely<unknown>): Promise<void> {
        // SQLite caches key and sender ID lookups (there is no cache on PostgreSQL). They
        // were emptied by every commit of another connection (PRAGMA data_version), so the
        // delivery thread's steady commits of messages emptied them on nearly every turn.
        // This counter moves only with writes to the tables the lookups read, whoever
        // makes them (this process, the admin CLI, another server, a hand-run sqlite3).
        if (dialect !== 'sqlite') return;
        await sql`create table lookup_version (id integer primary key check (id = 1), n integer not null)`.execute(db);
        await sql`insert into lookup_version (id, n) values (1, 0)`.execute(db);
        for (const table of ['accounts', 'api_keys', 'sender_ids']) {
          for (const event of ['insert', 'update', 'delete']) {
            await sql.raw(`create trigger ${table}_${event}_lookup_version after ${event} on ${table} begin update lookup_version set n = n + 1 where id = 1; end`).execute(db);
          }
        }
      },
    },
    '0009-drop-unread-indexes': {
      async up(db: Kysely<unknown>): Promise<void> {
        // No query reads these (the per-minute count reads sends by account and time, a
        // send is found by its id), yet every accepted send paid to insert into both.
        await db.schema.dropIndex('messages_account_time').execute();
        await db.schema.dropIndex('sends_account').execute();
      },
    },
    '0010-balance-version': {
      async up(db: Kysely<unknown>): Promise<void> {
        // Every send charges a balance: counted with the other account changes, each batch
        // of sends emptied the key and sender ID caches. Balances get a counter of their
        // own; the other counter moves with the account columns a key lookup holds.
        if (dialect !== 'sqlite') return;
        await sql`alter table lookup_version add column balances integer not null default 0`.execute(db);
        await sql`drop trigger accounts_update_lookup_version`.execute(db);
        await sql`create trigger accounts_update_lookup_version after update of id, name, status, per_minute_limit, otp_brand, ip_allow, global_sending, created_at on accounts begin update lookup_version set n = n + 1 where id = 1; end`.execute(db);
        await sql`create trigger accounts_balance_lookup_version after update of balance_main, balance_international on accounts begin update lookup_version set balances = balances + 1 where id = 1; end`.execute(db);
      },
    },
    '0011-webhook-event-selection': {
      async up(db: Kysely<unknown>): Promise<void> {
        // The events a key's webhook takes (key --webhook-events); null keeps every event.
        await db.schema.alterTable('api_keys').addColumn('webhook_events', 'text').execute();
      },
    },
    '0012-unique-sender-ids': {
      async up(db: Kysely<unknown>): Promise<void> {
        // A title is one sender ID per account. Earlier duplicates are folded into the row
        // that decided sends: an approved one if any (a send needs only one), else the
        // oldest; the others are deleted, so what every send is answered stays the same.
        await sql`
          delete from sender_ids where exists (
            select 1 from sender_ids better
            where better.account_id = sender_ids.account_id and better.title = sender_ids.title and better.id <> sender_ids.id
              and (case when better.status = 'approved' then 0 else 1 end, better.id) < (case when sender_ids.status = 'approved' then 0 else 1 end, sender_ids.id)
          )`.execute(db);
        // The unique index serves the approval lookup by (account_id, title) as the old one did.
        await db.schema.dropIndex('sender_ids_account').execute();
        await db.schema.createIndex('sender_ids_account_title').unique().on('sender_ids').columns(['account_id', 'title']).execute();
      },
    },
    '0013-webhook-retry-schedule': {
      async up(db: Kysely<unknown>): Promise<void> {
        // A key's own delays between webhook attempts (key --webhook-retry-schedule),
        // milliseconds comma-separated; null keeps the default schedule.
        await db.schema.alterTable('api_keys').addColumn('webhook_retry_schedule', 'text').execute();
      },
    },
    '0014-panel-users': panelUsersMigration(dialect),
    '0015-panel-counts': panelCountsMigration(dialect),
  };
}

/** Migrations are code, in order; later issues append to the list above. */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
