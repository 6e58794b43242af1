/**
 * Migration 0036-consent-sync-counts: its name is recorded in every store it ran on, so it
 * never changes.
 *
 * The Consents page's sync summary (SqlConsentStore.syncSummary) counted an account's
 * records by sync state and looked for the newest sync error by scanning all of them: about
 * 0.4 s for an account of 1,000,000 consents on SQLite, on the HTTP thread, at every view.
 *
 * - `iys_consent_sync_counts`: per account and sync state, how many records are in it, moved
 *   by triggers with every insert, delete and change of state, whoever writes (as migration
 *   0028's versions). Consent writes are not on a message's path; the sync's settle moves a
 *   count a record, in its batch's transaction.
 * - `iys_consents_sync_errors`: a partial index of the records that carry a sync error (few:
 *   those İYS refused or that wait for a retry), so the newest error is one index probe.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table iys_consent_sync_counts (
        account_id integer not null,
        sync_state text not null,
        n bigint not null,
        primary key (account_id, sync_state)
      )`.execute(db);
      await sql`insert into iys_consent_sync_counts (account_id, sync_state, n)
        select account_id, sync_state, count(*) from iys_consents group by account_id, sync_state`.execute(db);
      await sql`create index iys_consents_sync_errors on iys_consents (account_id, recorded_at)
        where sync_error is not null`.execute(db);
      if (dialect === 'sqlite') {
        // As 0028: no upsert in a trigger (an outer statement's conflict clause would
        // override it); the row is made when missing, then moved.
        const move = (row: 'new' | 'old', by: '+ 1' | '- 1') =>
          `insert into iys_consent_sync_counts (account_id, sync_state, n) select ${row}.account_id, ${row}.sync_state, 0
             where not exists (select 1 from iys_consent_sync_counts
               where account_id = ${row}.account_id and sync_state = ${row}.sync_state);
           update iys_consent_sync_counts set n = n ${by}
             where account_id = ${row}.account_id and sync_state = ${row}.sync_state;`;
        await sql
          .raw(
            `create trigger iys_consents_insert_sync_count after insert on iys_consents begin ${move('new', '+ 1')} end`,
          )
          .execute(db);
        await sql
          .raw(
            `create trigger iys_consents_delete_sync_count after delete on iys_consents begin ${move('old', '- 1')} end`,
          )
          .execute(db);
        await sql
          .raw(
            `create trigger iys_consents_update_sync_count after update of sync_state, account_id on iys_consents
               when old.sync_state is not new.sync_state or old.account_id is not new.account_id
               begin ${move('old', '- 1')} ${move('new', '+ 1')} end`,
          )
          .execute(db);
        return;
      }
      await sql`
        create function haberci_iys_sync_count() returns trigger language plpgsql as $$
        begin
          if tg_op in ('DELETE', 'UPDATE') then
            update iys_consent_sync_counts set n = n - 1
              where account_id = old.account_id and sync_state = old.sync_state;
          end if;
          if tg_op in ('INSERT', 'UPDATE') then
            insert into iys_consent_sync_counts (account_id, sync_state, n) values (new.account_id, new.sync_state, 1)
              on conflict (account_id, sync_state) do update set n = iys_consent_sync_counts.n + 1;
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger iys_consents_sync_count after insert or delete on iys_consents
        for each row execute function haberci_iys_sync_count()`.execute(db);
      await sql`create trigger iys_consents_sync_count_update after update of sync_state, account_id on iys_consents
        for each row when (old.sync_state is distinct from new.sync_state or old.account_id is distinct from new.account_id)
        execute function haberci_iys_sync_count()`.execute(db);
    },
  };
}
