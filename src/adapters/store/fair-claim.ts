/**
 * The webhook worker's claim that shares its slots among destinations: due events ranked
 * per key (oldest first) and taken round-robin, the first of each key, then the second...,
 * at most a number per key; keys whose destination has no free slot are skipped.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { ClaimShare } from '../../ports/event-store.js';
import type { Dialect } from './migrations.js';
import type { Executor } from './executor.js';
import type { WebhookEventsTable } from './schema.js';

/**
 * Due events looked at per claim, as a multiple of the claim's size: the ranking reads
 * only the oldest due events, so its cost does not grow with a backlog. A backlog of one
 * key fills the window only while that key has free slots; once it has none it is skipped
 * by the index scan and the events behind it are reached.
 */
const windowPerEvent = 10;

/** Claims up to `limit` due events for `leaseUntil`, shared as `share` says. */
export async function claimFairly(db: Executor, dialect: Dialect, p: { now: number; limit: number; leaseUntil: number }, share: ClaimShare): Promise<Selectable<WebhookEventsTable>[]> {
  const limits = [...share.keyLimits];
  const skipped = limits.filter(([, n]) => n <= 0).map(([keyId]) => keyId);
  const capped = limits.filter(([, n]) => n > 0);
  const notSkipped = skipped.length > 0 ? sql`and key_id not in (${sql.join(skipped)})` : sql``;
  // Casts: PostgreSQL cannot type a CASE whose every branch is a parameter.
  const int = (n: number) => sql`cast(${n} as integer)`;
  const perKey = capped.length > 0 ? sql`case key_id ${sql.join(capped.map(([keyId, n]) => sql`when ${keyId} then ${int(n)}`), sql` `)} else ${int(share.perKey)} end` : int(share.perKey);
  // Several workers on PostgreSQL: each skips rows another is claiming. The due test is
  // repeated where rows are locked, so a row another worker claimed meanwhile is re-checked.
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const { rows } = await sql<Selectable<WebhookEventsTable>>`
    update webhook_events set lease_until = ${p.leaseUntil}, next_attempt_at = ${p.leaseUntil}
    where id in (
      select id from webhook_events
      where id in (
        select id from (
          select id, next_attempt_at, row_number() over (partition by key_id order by next_attempt_at, id) as rn, key_id
          from (
            select id, key_id, next_attempt_at from webhook_events
            where state = 'pending' and next_attempt_at <= ${p.now} ${notSkipped}
            order by next_attempt_at, id
            limit ${int(p.limit * windowPerEvent)}
          ) as candidates
        ) as ranked
        where rn <= ${perKey}
        order by rn, next_attempt_at, id
        limit ${int(p.limit)}
      )
      and state = 'pending' and next_attempt_at <= ${p.now}
      ${lock}
    )
    returning *`.execute(db);
  return rows;
}
