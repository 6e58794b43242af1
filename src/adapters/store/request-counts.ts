/**
 * Request counts (`key_usage`, the hourly, daily and monthly request limits of a key): the
 * requests of one turn of the event loop counted together. Each dialect may count a batch in
 * one statement (`DialectSql.countRequests`: PostgreSQL's in postgres/request-counts.ts);
 * otherwise, and inside a caller's transaction, `countInTransaction` does it in three
 * statements a key.
 */
import { countOne } from '../../domain/request-limits.js';
import type { LimitHit, Usage, UsageRequest } from '../../domain/request-limits.js';
import type { Selectable } from 'kysely';
import type { KeyUsageTable } from './schema.js';
import type { Executor } from './executor.js';
import type { DialectSql } from './dialect-sql.js';

/** The requests by key, each key's in arrival order. */
export function byKey(items: readonly UsageRequest[]): Map<number, UsageRequest[]> {
  const keys = new Map<number, UsageRequest[]>();
  for (const item of items) {
    const list = keys.get(item.keyId);
    if (list === undefined) keys.set(item.keyId, [item]);
    else list.push(item);
  }
  return keys;
}

/** A key's counts as countOne reads them. */
export function usageOf(
  row: Pick<
    Selectable<KeyUsageTable>,
    'hour_bucket' | 'hour_count' | 'day_bucket' | 'day_count' | 'month_bucket' | 'month_count'
  >,
): Usage {
  return {
    hour: row.hour_bucket,
    hourCount: row.hour_count,
    day: row.day_bucket,
    dayCount: row.day_count,
    month: row.month_bucket,
    monthCount: row.month_count,
  };
}

/**
 * Each request's answer, by position, decided in arrival order from the counts its key held
 * before the batch (each key's counts raised as its requests are admitted). By position, not
 * by the request object: one object may stand for several requests (a lease's places).
 */
export function answersFrom(items: readonly UsageRequest[], counts: ReadonlyMap<number, Usage>): (LimitHit | null)[] {
  return items.map((item) => {
    const usage = counts.get(item.keyId);
    if (usage === undefined) throw new Error(`no request counts of key ${item.keyId}`);
    return countOne(usage, item.limits, item.windows);
  });
}

/**
 * In the caller's transaction, three statements per key whatever its number of requests: the
 * key's row is locked (a write first, so SQLite takes its write lock before reading; FOR
 * UPDATE on PostgreSQL), the requests are decided in arrival order in memory, and the counts
 * written back once. Keys in id order, so concurrent batches lock them in one order.
 */
export async function countInTransaction(
  db: Executor,
  dialect: DialectSql,
  items: readonly UsageRequest[],
): Promise<(LimitHit | null)[]> {
  const counts = new Map<number, Usage>();
  for (const [keyId, requests] of [...byKey(items)].sort((a, b) => a[0] - b[0])) {
    const first = requests[0]?.windows ?? { hour: '', day: '', month: '' };
    await db
      .insertInto('key_usage')
      .values({
        key_id: keyId,
        hour_bucket: first.hour,
        hour_count: 0,
        day_bucket: first.day,
        day_count: 0,
        month_bucket: first.month,
        month_count: 0,
      })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute();
    const row = await db
      .selectFrom('key_usage')
      .selectAll()
      .where('key_id', '=', keyId)
      .$call((qb) => dialect.forUpdate(qb))
      .executeTakeFirstOrThrow();
    counts.set(keyId, usageOf(row));
  }
  const answers = answersFrom(items, counts);
  for (const [keyId, usage] of [...counts].sort((a, b) => a[0] - b[0])) {
    await db
      .updateTable('key_usage')
      .set({
        hour_bucket: usage.hour,
        hour_count: usage.hourCount,
        day_bucket: usage.day,
        day_count: usage.dayCount,
        month_bucket: usage.month,
        month_count: usage.monthCount,
      })
      .where('key_id', '=', keyId)
      .execute();
  }
  return answers;
}
