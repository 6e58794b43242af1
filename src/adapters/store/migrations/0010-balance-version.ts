/** Migration 0010-balance-version: its name is recorded in every store it ran on, so it never changes. */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Every send charges a balance: counted with the other account changes, each batch
      // of sends emptied the key and sender ID caches. Balances get a counter of their
      // own; the other counter moves with the account columns a key lookup holds.
      if (dialect !== 'sqlite') return;
      await sql`alter table lookup_version add column balances integer not null default 0`.execute(db);
      await sql`drop trigger accounts_update_lookup_version`.execute(db);
      await sql`create trigger accounts_update_lookup_version after update of id, name, status, per_minute_limit, otp_brand, ip_allow, global_sending, created_at on accounts begin update lookup_version set n = n + 1 where id = 1; end`.execute(
        db,
      );
      await sql`create trigger accounts_balance_lookup_version after update of balance_main, balance_international on accounts begin update lookup_version set balances = balances + 1 where id = 1; end`.execute(
        db,
      );
    },
  };
}
