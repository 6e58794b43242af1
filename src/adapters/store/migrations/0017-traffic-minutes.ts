/**
 * Migration 0017-traffic-minutes: the provider console's traffic per minute. Each
 * thread of each process counts its messages' steps in memory and writes one row per minute
 * (`source`: the thread of a process, random per start), so no message adds a write; the
 * console sums the rows of a minute across threads and processes. Its name is recorded in
 * every store it ran on, so it never changes.
 */
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('traffic_minutes')
        // Unix minutes (epoch ms / 60,000).
        .addColumn('minute', 'integer', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('accepted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('submitted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expired', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('traffic_minutes_pk', ['minute', 'source'])
        .execute();
    },
  };
}
