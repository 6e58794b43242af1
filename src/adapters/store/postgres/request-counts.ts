/**
 * PostgreSQL: the requests of a batch counted in one statement, one round trip (the
 * transaction of request-counts.ts takes five): each key's row is locked (FOR UPDATE, in key
 * order) and its counts raised by as many of its requests as its limits admit, the windows
 * that moved on starting again at zero. The statement returns the counts it found, from which
 * each request's answer is decided in memory by the same rule (countOne), in arrival order.
 */
import { sql } from 'kysely';
import type { LimitHit, Usage, UsageRequest } from '../../../domain/request-limits.js';
import type { Executor } from '../executor.js';
import type { KeyUsageTable } from '../schema.js';
import { answersFrom, byKey, usageOf } from '../request-counts.js';

/** Null when a key's requests of the batch differ in limits or windows (a limit changed, an hour began): the transaction decides those. Keys without a usage row yet get one first. */
export async function countInOneStatement(
  db: Executor,
  items: readonly UsageRequest[],
): Promise<(LimitHit | null)[] | null> {
  const keys = byKey(items);
  const same = (a: UsageRequest, b: UsageRequest): boolean =>
    a.limits.hourly === b.limits.hourly &&
    a.limits.daily === b.limits.daily &&
    a.limits.monthly === b.limits.monthly &&
    a.windows.hour === b.windows.hour &&
    a.windows.day === b.windows.day &&
    a.windows.month === b.windows.month;
  const firsts: UsageRequest[] = [];
  for (const list of keys.values()) {
    const first = list[0] as UsageRequest;
    if (!list.every((r) => same(r, first))) return null;
    firsts.push(first);
  }
  firsts.sort((x, y) => x.keyId - y.keyId);
  const found = await raiseCounts(db, firsts, keys);
  const missing = firsts.filter((f) => !found.has(f.keyId));
  if (missing.length > 0) {
    await db
      .insertInto('key_usage')
      .values(
        missing.map((f) => ({
          key_id: f.keyId,
          hour_bucket: f.windows.hour,
          hour_count: 0,
          day_bucket: f.windows.day,
          day_count: 0,
          month_bucket: f.windows.month,
          month_count: 0,
        })),
      )
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute();
    for (const [keyId, usage] of await raiseCounts(db, missing, keys)) found.set(keyId, usage);
  }
  return answersFrom(items, found);
}

/** The statement: the counts each key's row held before it, by key (keys with no row are absent). */
async function raiseCounts(
  db: Executor,
  firsts: readonly UsageRequest[],
  keys: ReadonlyMap<number, readonly UsageRequest[]>,
): Promise<Map<number, Usage>> {
  const ids = firsts.map((f) => f.keyId);
  const current = (bucket: string, count: string, window: string): string =>
    `(case when o.${bucket} = r.${window} then o.${count} else 0 end)`;
  const h = current('hour_bucket', 'hour_count', 'hb');
  const d = current('day_bucket', 'day_count', 'db');
  const m = current('month_bucket', 'month_count', 'mb');
  const left = (limit: string, count: string): string =>
    `(case when r.${limit} > 0 then r.${limit} - ${count} else r.n end)`;
  const admitted = sql.raw(`greatest(0, least(r.n, ${left('hl', h)}, ${left('dl', d)}, ${left('ml', m)}))`);
  const { rows } = await sql<KeyUsageTable>`
    update key_usage u set
      hour_bucket = r.hb, hour_count = ${sql.raw(h)} + ${admitted},
      day_bucket = r.db, day_count = ${sql.raw(d)} + ${admitted},
      month_bucket = r.mb, month_count = ${sql.raw(m)} + ${admitted}
    from (select * from key_usage where key_id = any(${ids}::int[]) order by key_id for update) o,
      unnest(${ids}::int[], ${firsts.map((f) => keys.get(f.keyId)?.length ?? 0)}::int[], ${firsts.map((f) => f.limits.hourly)}::int[],
        ${firsts.map((f) => f.limits.daily)}::int[], ${firsts.map((f) => f.limits.monthly)}::int[], ${firsts.map((f) => f.windows.hour)}::text[],
        ${firsts.map((f) => f.windows.day)}::text[], ${firsts.map((f) => f.windows.month)}::text[]) as r(key_id, n, hl, dl, ml, hb, db, mb)
    where u.key_id = o.key_id and o.key_id = r.key_id
    returning o.key_id, o.hour_bucket, o.hour_count, o.day_bucket, o.day_count, o.month_bucket, o.month_count`.execute(
    db,
  );
  return new Map(rows.map((row) => [row.key_id, usageOf(row)]));
}
