/**
 * The general per-key request rate counted in PostgreSQL (`rate_windows`, migration 0020),
 * for processes that share a store without `--redis`: the rate holds for all of them. The
 * additions of one turn of the event loop (rate-leases.ts adds several requests at once) are counted in one statement (an upsert of a row
 * per key), on the database's clock, so processes whose clocks differ agree on windows.
 * Rows of windows long over are deleted once a minute.
 */
import { sql } from 'kysely';
import type { Counted } from '../../ports/rate-counter.js';
import type { SharedRate, SharedRateTally } from '../../ports/shared-rate.js';
import { MicroBatcher } from '../../util/micro-batcher.js';
import { StorePart } from './store-part.js';
import { placesOf, sumsByKey } from '../rate/rate-batch.js';
import type { RateAdd } from '../rate/rate-batch.js';

/** A window whose end is this far past is deleted. */
const keepMs = 60_000;

export class SqlRateWindows extends StorePart implements SharedRate {
  /** Counts a turn's hits of one window length; created on first use. */
  private batchers = new Map<number, MicroBatcher<RateAdd, Counted>>();

  /** The tally on this store: PostgreSQL only (SQLite's one process counts in memory). */
  counter(): SharedRateTally {
    if (!this.sql.sharedByProcesses) throw new Error('the shared rate counter is for PostgreSQL');
    return {
      name: 'postgres',
      add: (key, windowMs, n) => this.batcher(windowMs).add({ key, n }),
      sweep: () => this.sweep(),
      close: async () => undefined,
    };
  }

  private batcher(windowMs: number): MicroBatcher<RateAdd, Counted> {
    let batcher = this.batchers.get(windowMs);
    if (!batcher) {
      batcher = new MicroBatcher((adds: RateAdd[]) => this.count(adds, windowMs), 1000);
      this.batchers.set(windowMs, batcher);
    }
    return batcher;
  }

  /** One statement for a batch: each key's additions added to its window (a new one when it ended). */
  private async count(adds: readonly RateAdd[], windowMs: number): Promise<Counted[]> {
    const sums = sumsByKey(adds);
    // Sorted, so that two processes lock the rows of one batch in the same order.
    const distinct = [...sums.keys()].sort();
    const now = sql`(extract(epoch from statement_timestamp()) * 1000)::bigint`;
    const { rows } = await sql<{ rate_key: string; hits: number; ttl: number }>`
      insert into rate_windows (rate_key, window_end, hits)
      select r.k, ${now} + ${windowMs}, r.n
      from unnest(${distinct}::text[], ${distinct.map((k) => sums.get(k) ?? 0)}::int[]) with ordinality as r(k, n, o)
      order by r.o
      on conflict (rate_key) do update set
        hits = case when rate_windows.window_end > ${now} then rate_windows.hits + excluded.hits else excluded.hits end,
        window_end = case when rate_windows.window_end > ${now} then rate_windows.window_end else excluded.window_end end
      returning rate_key, hits, (window_end - ${now})::int as ttl`.execute(this.db);
    const after = new Map(rows.map((r) => [r.rate_key, { current: r.hits, ttlMs: r.ttl }]));
    return placesOf(adds, sums, after, windowMs);
  }

  /** Deletes windows that ended over a minute ago; answers how many. */
  async sweep(): Promise<number> {
    const result =
      await sql`delete from rate_windows where window_end < (extract(epoch from statement_timestamp()) * 1000)::bigint - ${keepMs}`.execute(
        this.db,
      );
    return Number(result.numAffectedRows ?? 0);
  }
}
