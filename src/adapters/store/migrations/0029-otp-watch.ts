/**
 * Migration 0029: the OTP conversion watch, and OTP rows that retention can reach.
 *
 * - `otp_settings` gains the watch's per-key thresholds (null: the default;
 *   docs/decisions.md, "The OTP conversion watch"): `watch_min_sent` (codes a prefix must
 *   have had in the window before it is judged; 0 turns the watch off for the key),
 *   `watch_min_share` (percent of codes verified below which a prefix is suspect) and
 *   `watch_rise` (how many times the previous window's volume the window must reach).
 * - `otp_holds` (made by 0026 and never written) is made again with what a hold shows:
 *   the key's account, the counts that made the watch hold the prefix, and who released it.
 *   Active holds (`released_at` null) are what `/otp/send` and `/otp/detailed` refuse.
 * - Time indexes on `otp_codes` and `otp_refusals` for the watch's window and for retention,
 *   and by account for the panel's OTP page (its counts and its blocked attempts).
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`alter table otp_settings add column watch_min_sent integer`.execute(db);
      await sql`alter table otp_settings add column watch_min_share integer`.execute(db);
      await sql`alter table otp_settings add column watch_rise integer`.execute(db);
      await sql`drop table otp_holds`.execute(db);
      await sql`create table otp_holds (
        key_id integer not null,
        prefix text not null,
        held_at bigint not null,
        account_id integer not null,
        sent integer not null,
        verified integer not null,
        previous_sent integer not null,
        released_at bigint,
        primary key (key_id, prefix, held_at)
      )`.execute(db);
      await sql`create index otp_holds_account on otp_holds (account_id, held_at)`.execute(db);
      await sql`create index otp_holds_held on otp_holds (held_at)`.execute(db);
      await sql`create index otp_codes_created on otp_codes (created_at)`.execute(db);
      await sql`create index otp_refusals_at on otp_refusals (at)`.execute(db);
      await sql`create index otp_codes_account on otp_codes (account_id, created_at)`.execute(db);
      await sql`create index otp_refusals_account on otp_refusals (account_id, at)`.execute(db);
    },
  };
}
