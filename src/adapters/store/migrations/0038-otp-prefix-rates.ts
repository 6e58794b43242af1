/**
 * Migration 0038: the OTP guard's defaults that never refuse ordinary traffic
 * (docs/decisions.md, "The OTP guard's defaults").
 *
 * - `otp_prefix_rates`: per key and destination prefix, the rise rule's history
 *   (domain/otp-prefix-rate.ts): the unix minute last counted, its codes, and the baseline
 *   (codes per minute over about the hour before it). Written in each OTP send's transaction,
 *   under the account's lock, so every process counts into one row. A logged table: a
 *   history lost to a crash would hold a steady sender to the floor until it was rebuilt.
 * - `otp_settings` gains the rise rule's per-key thresholds (null: the default):
 *   `prefix_rise` (times the baseline a minute may reach; 0 turns the rule off) and
 *   `prefix_rise_min` (codes a prefix may always get in a minute).
 * - `otp_account_settings`: the provider's narrowing of an account's OTP countries (null or
 *   no row: every country), which the customer's key settings cannot widen.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const real = sql.raw(dialect === 'postgres' ? 'double precision' : 'real');
      await sql`create table otp_prefix_rates (
        key_id integer not null,
        prefix text not null,
        minute bigint not null,
        codes integer not null,
        baseline ${real} not null,
        primary key (key_id, prefix)
      )`.execute(db);
      await sql`alter table otp_settings add column prefix_rise integer`.execute(db);
      await sql`alter table otp_settings add column prefix_rise_min integer`.execute(db);
      await sql`create table otp_account_settings (
        account_id integer primary key,
        countries text,
        updated_at bigint not null
      )`.execute(db);
    },
  };
}
