/**
 * Migration 0034: the binds of the SMPP carrier's connections, for the whole cluster
 * (docs/decisions.md, "One owner per carrier bind").
 *
 * - `carrier_binds`: one row per place of a connection (`slot` 0 .. maxBinds - 1), held by
 *   one process (`owner`) until `expires_at`; the owner renews it while its bind lives. A
 *   place whose lease ran out is taken by an upsert on the primary key, so two processes
 *   never hold one place.
 * - `carrier_rates`: the connection's last rate cut (AIMD) for the cluster: the rate it
 *   was cut to and when; every owner reads it and paces its share from it.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('carrier_binds')
        .addColumn('connection', 'text', (c) => c.notNull())
        .addColumn('slot', 'integer', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('bound_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('carrier_binds_pk', ['connection', 'slot'])
        .execute();
      await db.schema
        .createTable('carrier_rates')
        .addColumn('connection', 'text', (c) => c.primaryKey())
        .addColumn('rate', 'double precision', (c) => c.notNull())
        .addColumn('cut_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
