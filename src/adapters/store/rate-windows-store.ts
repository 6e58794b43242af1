/**
 * The general per-key request rate counted in PostgreSQL (`rate_windows`, migration 0020),
 * for processes that share a store without `--redis`: the rate holds for all of them. The
 * requests of one turn of the event loop are counted in one statement (an upsert of a row
 * per key), on the database's clock, so processes whose clocks differ agree on windows.
 * Rows of windows long over are deleted once a minute.
 */
import { sql } from 'kysely';
import type { RateCounter } from '../../ports/rate-counter.js';
import { MicroBatcher } from '../../util/micro-batcher.js';
import { StorePart } from './store-part.js';

type Counted = { current: number; ttlMs: number };

/** A window whose end is this far past is deleted. */
const keepMs = 60_000;

export class SqlRateWindows extends StorePart {
  /** Counts a turn's hits of one window length; created on first use. */
  private batchers = new Map<number, MicroBatcher<string, Counted>>();

  /** The counter on this store: PostgreSQL only (SQLite's one process counts in memory). */
  counter(): RateCounter & { sweep(): Promise<number> } {
    if (this.dialect !== 'postgres') throw new Error('the shared rate counter is for PostgreSQL');
    return {
      name: 'postgres',
      hit: (key, windowMs) => this.batcher(windowMs).add(key),
      sweep: () => this.sweep(),
      close: async () => undefined,
    };
  }

  private batcher(windowMs: number): MicroBatcher<string, Counted> {
    let batcher = this.batchers.get(windowMs);
    if (!batcher) {
      batcher = new MicroBatcher((keys: string[]) => this.count(keys, windowMs), 1000);
      this.batchers.set(windowMs, batcher);
    }
    return batcher;
  }

  /** One statement for a batch: each key's hits added to its window (a new one when it ended). */
  private async count(keys: readonly string[], windowMs: number): Promise<Counted[]> {
    const perKey = new Map<string, number>();
    for (const key of keys) perKey.set(key, (perKey.get(key) ?? 0) + 1);
    // Sorted, so that two processes lock the rows of one batch in the same order.
    const distinct = [...perKey.keys()].sort();
    const now = sql`(extract(epoch from statement_timestamp()) * 1000)::bigint`;
    const { rows } = await sql<{ rate_key: string; hits: number; ttl: number }>`
      insert into rate_windows (rate_key, window_end, hits)
      select r.k, ${now} + ${windowMs}, r.n
      from unnest(${distinct}::text[], ${distinct.map((k) => perKey.get(k) ?? 0)}::int[]) with ordinality as r(k, n, o)
      order by r.o
      on conflict (rate_key) do update set
        hits = case when rate_windows.window_end > ${now} then rate_windows.hits + excluded.hits else excluded.hits end,
        window_end = case when rate_windows.window_end > ${now} then rate_windows.window_end else excluded.window_end end
      returning rate_key, hits, (window_end - ${now})::int as ttl`.execute(this.db);
    const counted = new Map(rows.map((r) => [r.rate_key, r]));
    // Each request of a key gets its place in the key's window: the batch's first is the
    // window's count before the batch plus one.
    const seen = new Map<string, number>();
    return keys.map((key) => {
      const row = counted.get(key);
      const n = perKey.get(key) ?? 1;
      const i = seen.get(key) ?? 0;
      seen.set(key, i + 1);
      return { current: (row?.hits ?? n) - n + i + 1, ttlMs: Math.max(0, row?.ttl ?? windowMs) };
    });
  }

  /** Deletes windows that ended over a minute ago; answers how many. */
  async sweep(): Promise<number> {
    const result = await sql`delete from rate_windows where window_end < (extract(epoch from statement_timestamp()) * 1000)::bigint - ${keepMs}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
