/**
 * The deriver's side of the panel's rollups (src/ports/derived-counts.ts): what the writes of
 * messages queued in `count_deltas` (messages/rollups.ts, migration 0035) added to the
 * rollups, the inserted messages added to the number search (`message_numbers`), and the
 * rows removed from the queue, in one transaction.
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
import type { InsertedRange } from './messages/rollups.js';
import type { Executor } from './executor.js';

/** Ranges per statement of the number search's insert (three parameters each). */
const rangeChunk = 300;

/**
 * The number search's rows of the messages in `ranges` (the messages of a send inserted by
 * one write), read from `messages` by its index on (send_id, id). A row already there is
 * left (a range is derived once; the conflict clause only guards).
 */
async function indexNumbers(db: Executor, ranges: readonly InsertedRange[]): Promise<void> {
  for (let start = 0; start < ranges.length; start += rangeChunk) {
    const values = sql.join(
      ranges
        .slice(start, start + rangeChunk)
        .map((r) => sql`(cast(${r.sendId} as bigint), cast(${r.lo} as bigint), cast(${r.hi} as bigint))`),
    );
    await sql`with r (send_id, lo, hi) as (values ${values})
      insert into message_numbers (account_id, recipient, created_at, message_id)
      select m.account_id, m.recipient, m.created_at, m.id from r join messages m on m.send_id = r.send_id and m.id between r.lo and r.hi
      where true
      on conflict do nothing`.execute(db);
  }
}

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
      await indexNumbers(self.db, deltas.inserts);
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
