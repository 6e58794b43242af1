/**
 * Migration 0033: lanes and fair shares of the carrier (docs/decisions.md, "Lanes and fair
 * shares of the carrier").
 *
 * - `messages_lanes` on messages (state, priority, account_id, due_at, id): the claim finds
 *   the accounts with queued messages in each lane by skipping along it (one seek per
 *   account and lane, not a scan of the backlog), then reads each account's oldest due
 *   messages from it.
 * - `accounts.send_weight`: an account's weight in its share of the carrier (default 1, equal
 *   shares), set by the provider (`haberci admin account update --send-weight N`).
 */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
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
    },
  };
}
