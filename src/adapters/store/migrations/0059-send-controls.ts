/**
 * Migration 0059-send-controls: its name is recorded in every store it ran on, so it never
 * changes (docs/decisions.md, "Send window, speed and validity").
 *
 * - `sends.send_window` (JSON of minutes and weekdays), `sends.speed` (messages a minute),
 *   `sends.valid_until` (the instant its messages may no longer be submitted): null on every
 *   send that asked for none, so the claims of the dispatcher read them beside the send's
 *   text (they join `sends` already) and decide nothing more for those sends.
 * - `sends.pace_next_at`: a paced send's next free slot, where the next chunk of its list
 *   written out (or its messages given back by a resume) take up the pace.
 * - `accounts.send_defaults`: the account's defaults of the three (JSON), read by the key
 *   lookup with the account, so a send that names none costs no read more. The lookup caches
 *   hold it, so the triggers that tell other connections of a change of the account's
 *   looked-up columns watch it too (as 0033 did for `send_weight`).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { watchAccountLookups } from './account-lookup-triggers.js';

const watched =
  'id, name, status, per_minute_limit, otp_brand, ip_allow, global_sending, created_at, send_weight, send_defaults';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sends').addColumn('send_window', 'text').execute();
      await db.schema.alterTable('sends').addColumn('speed', 'integer').execute();
      await db.schema.alterTable('sends').addColumn('valid_until', 'bigint').execute();
      await db.schema.alterTable('sends').addColumn('pace_next_at', 'bigint').execute();
      await db.schema.alterTable('accounts').addColumn('send_defaults', 'text').execute();
      await watchAccountLookups(db, dialect, watched);
    },
  };
}
