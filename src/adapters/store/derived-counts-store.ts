/**
 * The deriver's side of the panel's rollups (src/ports/derived-counts.ts): what the writes of
 * messages queued in `count_deltas` (messages/rollups.ts, migration 0035) added to the
 * rollups and removed from the queue in one transaction.
 *
 * Rows are deleted by the ids this transaction read, never by a range: on PostgreSQL ids from
 * a sequence are not committed in id order, so a row of a lower id may commit after a higher
 * one was read; a range would delete it uncounted. A row read is locked by the derivation's
 * row lock (one deriver at a time), and a row not yet committed is simply read next round.
 */
import { sql } from 'kysely';
import { StorePart } from './store-part.js';
import type { DerivedCounts, DerivedRound } from '../../ports/derived-counts.js';
import { RollupDeltas } from './messages/rollups.js';

export class SqlDerivedCounts extends StorePart implements DerivedCounts {
  deriveRollups(limit: number, now: number): Promise<DerivedRound> {
    return this.transact(async (self) => {
      const held = await self.sql
        .claim(self.db.selectFrom('derivations').select('name').where('name', '=', 'rollups'))
        .executeTakeFirst();
      if (!held) return { derived: 0, busy: true };
      const rows = await self.db
        .selectFrom('count_deltas')
        .select(['id', 'deltas'])
        .orderBy('id')
        .limit(limit)
        .execute();
      if (rows.length === 0) return { derived: 0, busy: false };
      const deltas = new RollupDeltas();
      for (const r of rows) deltas.addQueued(r.deltas);
      await deltas.apply(self.db);
      await self.db
        .deleteFrom('count_deltas')
        .where(
          'id',
          'in',
          rows.map((r) => Number(r.id)),
        )
        .execute();
      await self.db
        .updateTable('derivations')
        .set({ derived_rows: sql<number>`derived_rows + ${rows.length}`, derived_at: now })
        .where('name', '=', 'rollups')
        .execute();
      return { derived: rows.length, busy: false };
    });
  }

  async rollupsPending(): Promise<number> {
    const row = await this.db
      .selectFrom('count_deltas')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
