/**
 * Migration 0024: commercial messages under Turkish law (İYS).
 *
 * - `iys_consents`: one row per account, recipient type and recipient, the consent in force
 *   (the newest wins; SqlConsentStore). Its primary key is the lookup of a commercial send:
 *   the statuses of up to 50,000 numbers of one account and type, a chunk of numbers per
 *   statement, each an index probe whatever the number of rows. The sync columns say what
 *   is still to be sent to İYS (`sync_state`: pending, synced, failed; from_iys for records
 *   pulled from it), and the index on them is the sync job's queue.
 * - `iys_settings`: the account's İYS codes and credentials (the password encrypted), the
 *   words that make an inbound reply a RET, whether text rules refuse, and the pull cursor.
 * - `sends.iys`: for a commercial send, JSON `{type, none, ret}`: its recipient type and how
 *   many of its recipients were left out for want of consent and for a RET. Those are the
 *   last `none + ret` of its recipient list (none first), which the expander writes out as
 *   failed, uncharged messages.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table iys_consents (
        account_id integer not null,
        recipient_type text not null,
        recipient text not null,
        status text not null,
        source text not null,
        consent_date bigint not null,
        recorded_at bigint not null,
        sync_state text not null,
        sync_attempts integer not null default 0,
        sync_due_at bigint,
        synced_at bigint,
        sync_error text,
        primary key (account_id, recipient_type, recipient)
      )`.execute(db);
      await sql`create index iys_consents_sync on iys_consents (sync_state, sync_due_at)`.execute(db);
      await sql`create table iys_settings (
        account_id integer primary key,
        iys_code text not null,
        brand_code text not null,
        url text,
        username text,
        password_secret text,
        ret_words text,
        refuse_text_rules integer not null default 0,
        pull_cursor text,
        updated_at bigint not null
      )`.execute(db);
      await sql`alter table sends add column iys text`.execute(db);
    },
  };
}
