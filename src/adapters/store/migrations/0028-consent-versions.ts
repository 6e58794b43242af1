/**
 * Migration 0028-consent-versions: its name is recorded in every store it ran on, so it
 * never changes.
 *
 * `iys_consent_versions`: per account, a counter that moves with every write that changes a
 * consent in force (a row of `iys_consents` inserted or deleted, or its status or consent
 * date updated), whoever makes it (this process, another, the admin CLI, a hand-run
 * statement): triggers move it, in the writer's transaction. A commercial send reads it (one
 * probe) to tell whether the account's consent index in memory (consent-index.ts) is still
 * what the table holds. A sync outcome (the sync_* columns) does not move it.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table iys_consent_versions (account_id integer primary key, n bigint not null)`.execute(db);
      if (dialect === 'sqlite') {
        // No OR IGNORE: the conflict clause of an outer upsert (SqlConsentStore.record) would
        // override it and fail the statement; the row is made when missing instead.
        const bump = (row: 'new' | 'old') =>
          `insert into iys_consent_versions (account_id, n) select ${row}.account_id, 0
             where not exists (select 1 from iys_consent_versions where account_id = ${row}.account_id);
           update iys_consent_versions set n = n + 1 where account_id = ${row}.account_id;`;
        for (const [name, event, row] of [
          ['insert', 'insert', 'new'],
          ['update', 'update of status, consent_date, account_id', 'new'],
          ['delete', 'delete', 'old'],
        ] as const) {
          await sql
            .raw(`create trigger iys_consents_${name}_version after ${event} on iys_consents begin ${bump(row)} end`)
            .execute(db);
        }
        return;
      }
      await sql`
        create function haberci_iys_consent_version() returns trigger language plpgsql as $$
        declare
          account integer;
        begin
          if tg_op = 'DELETE' then account := old.account_id; else account := new.account_id; end if;
          insert into iys_consent_versions (account_id, n) values (account, 1)
            on conflict (account_id) do update set n = iys_consent_versions.n + 1;
          return null;
        end $$`.execute(db);
      await sql`create trigger iys_consents_version after insert or delete or update of status, consent_date, account_id
        on iys_consents for each row execute function haberci_iys_consent_version()`.execute(db);
    },
  };
}
