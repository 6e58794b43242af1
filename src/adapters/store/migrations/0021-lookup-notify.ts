/**
 * Migration 0021-lookup-notify: its name is recorded in every store it ran on, so
 * it never changes.
 *
 * PostgreSQL: the lookup caches' change signal, as SQLite's `lookup_version` (0008, 0010) is
 * on SQLite. A statement that writes accounts (other than a balance), api_keys or sender_ids
 * NOTIFYs `haberci_lookups` with `schema:lookups`; one that changes a balance, with
 * `schema:balances`. PostgreSQL sends a transaction's notifications when it commits, one of
 * each payload however many statements made it, and none for a transaction rolled back:
 * what a listener hears are commits (postgres/lookup-changes.ts). Statement triggers, so a
 * batch of sends charging many accounts costs one call.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function haberci_lookups_changed() returns trigger language plpgsql as $$
        begin
          perform pg_notify('haberci_lookups', current_schema() || ':' || tg_argv[0]);
          return null;
        end $$`.execute(db);
      const statement = (name: string, event: string, table: string, topic: 'lookups' | 'balances') =>
        sql
          .raw(
            `create trigger ${name} after ${event} on ${table} for each statement execute function haberci_lookups_changed('${topic}')`,
          )
          .execute(db);
      await statement(
        'accounts_lookups_changed',
        'insert or delete or update of id, name, status, per_minute_limit, otp_brand, ip_allow, global_sending, created_at',
        'accounts',
        'lookups',
      );
      await statement(
        'accounts_balances_changed',
        'update of balance_main, balance_international',
        'accounts',
        'balances',
      );
      await statement('api_keys_lookups_changed', 'insert or update or delete', 'api_keys', 'lookups');
      await statement('sender_ids_lookups_changed', 'insert or update or delete', 'sender_ids', 'lookups');
    },
  };
}
