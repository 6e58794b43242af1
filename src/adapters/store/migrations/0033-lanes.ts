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
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { watchAccountLookups } from './account-lookup-triggers.js';

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
      await watchAccountLookups(db, dialect, watched);
    },
  };
}
