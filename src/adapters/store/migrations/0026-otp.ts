/**
 * Migration 0026: one-time passwords that verify themselves, and their guard.
 *
 * - `otp_codes`: one row per OTP message (its id is the `sms_id` of /otp/send and
 *   /otp/detailed), written in the send's transaction: the code only as a keyed hash
 *   (HMAC-SHA256 under `otp_secret`), its deadline, its tries and when it was verified.
 *   `destination` and `prefix` let the guard count per number and per prefix.
 *   `sealed_text`: the message's real text, sealed (AES-256-GCM under a key derived from
 *   `otp_secret`) for a dispatcher that claims it back from the store; the send's own
 *   `text` holds the text with the code masked, so the plain code is nowhere at rest.
 * - `otp_secret`: the installation's HMAC key, drawn once here (32 random bytes).
 * - `otp_settings`: a key's OTP settings (validity, tries, countries, velocity); no row
 *   is the defaults (docs/decisions.md, "One-time passwords").
 * - `otp_refusals`: OTP sends the guard refused (none charged), for the panel and console.
 * - `otp_holds`: destination prefixes the conversion watch holds for a key.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table otp_codes (
        message_id bigint primary key,
        account_id integer not null,
        key_id integer not null,
        sandbox integer not null,
        destination text not null,
        prefix text not null,
        code_hash text not null,
        sealed_text text,
        created_at bigint not null,
        expires_at bigint not null,
        max_tries integer not null,
        tries integer not null default 0,
        verified_at bigint
      )`.execute(db);
      await sql`create index otp_codes_destination on otp_codes (destination, created_at)`.execute(db);
      await sql`create index otp_codes_key_prefix on otp_codes (key_id, prefix, created_at)`.execute(db);
      await sql`create table otp_secret (
        id integer primary key,
        secret text not null
      )`.execute(db);
      await sql`insert into otp_secret (id, secret) values (1, ${randomBytes(32).toString('hex')})`.execute(db);
      await sql`create table otp_settings (
        key_id integer primary key,
        validity_s integer,
        max_tries integer,
        countries text,
        per_number_hour integer,
        per_number_day integer,
        per_prefix_minute integer,
        cooldown_s integer,
        updated_at bigint not null
      )`.execute(db);
      await sql`create table otp_refusals (
        key_id integer not null,
        account_id integer not null,
        at bigint not null,
        reason text not null,
        destination text not null
      )`.execute(db);
      await sql`create index otp_refusals_key on otp_refusals (key_id, at)`.execute(db);
      await sql`create table otp_holds (
        key_id integer not null,
        prefix text not null,
        held_at bigint not null,
        released_at bigint,
        primary key (key_id, prefix, held_at)
      )`.execute(db);
    },
  };
}
