/**
 * Migration 0039-smpp-part-schedule: its name is recorded in every store it ran on, so it
 * never changes.
 *
 * `smpp_assembly_parts.scheduled_at`: the instant a part's `schedule_delivery_time` asked for
 * (null: none). A concatenated submit is scheduled as a whole, not before the latest instant
 * any of its parts asked for (docs/smpp.md, "Scheduled submits"), and its parts may arrive
 * through different processes or across a restart, so each part's schedule is kept with it.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('smpp_assembly_parts').addColumn('scheduled_at', 'bigint').execute();
    },
  };
}
