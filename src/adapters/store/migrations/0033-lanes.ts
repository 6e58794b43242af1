/**
 * Migration 0033: lanes and fair shares of the carrier (docs/decisions.md, "Lanes and fair
 * shares of the carrier").
 *
 * - `messages_lanes` on messages (state, priority, account_id, due_at, id): the claim finds
 *   the accounts with queued messages in each lane by skipping along it (one seek per
 *   account and lane, not a scan of the backlog), then reads each account's oldest due
 *   messages from it.
 * - `accounts.send_weight`: an account's weight in its share of the carrier (default 1, equal
 *   shares), set by the provider (`haberci admin account update --send-weight N`). The
 *   lookup caches' change signal watches it as every other account column but the
 *   balances (SQLite's trigger of 0010, PostgreSQL's of 0021, made again with it): a cached
 *   account of another connection must not keep an old weight.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

const watched = 'id, name, status, per_minute_limit, otp_brand, ip_allow, global_sending, created_at, send_weight';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('messages_lanes')
        .on('messages')
        .columns(['state', 'priority', 'account_id', 'due_at', 'id'])
        .execute();
      await db.schema
        .alterTable('accounts')
        .addColumn('send_weight', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      if (dialect === 'sqlite') {
        await sql`drop trigger accounts_update_lookup_version`.execute(db);
        await sql
          .raw(
            `create trigger accounts_update_lookup_version after update of ${watched} on accounts begin update lookup_version set n = n + 1 where id = 1; end`,
          )
          .execute(db);
      } else {
        await sql`drop trigger accounts_lookups_changed on accounts`.execute(db);
        await sql
          .raw(
            `create trigger accounts_lookups_changed after insert or delete or update of ${watched} on accounts for each statement execute function haberci_lookups_changed('lookups')`,
          )
          .execute(db);
      }
    },
  };
}
