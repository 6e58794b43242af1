/**
 * Migration 0031-consent-rets-index: its name is recorded in every store it ran on, so it
 * never changes.
 *
 * `iys_consents_rets`: the panel's "RETs received by reply" (SqlConsentStore.retsByReply),
 * newest first per account, read on every view of the Consents page. A partial index of the
 * RET rows that came by reply (status RET, source HS_MESAJ) only, so it costs nothing to the
 * other writes (imports, the API's adds, the sync) and reads a page of an account's RETs
 * without scanning its other consents. The query names the predicate's values as literals:
 * neither dialect matches a partial index against bound parameters.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create index iys_consents_rets on iys_consents (account_id, consent_date)
        where status = 'RET' and source = 'HS_MESAJ'`.execute(db);
    },
  };
}
