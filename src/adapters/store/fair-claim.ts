/**
 * The webhook courier's claim that shares its slots among destinations: due events ranked
 * per key (oldest first) and taken round-robin, the first of each key, then the second...,
 * at most a number per key; keys whose destination has no free slot are skipped.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { ClaimShare } from '../../ports/event-store.js';
import type { Dialect } from './store-location.js';
import type { Executor } from './executor.js';
import type { WebhookEventsTable } from './schema.js';
import { preparedQuery } from './prepared-query.js';

/**
 * Due events looked at per claim, as a multiple of the claim's size: the ranking reads
 * only the oldest due events, so its cost does not grow with a backlog. A backlog of one
 * key fills the window only while that key has free slots; once it has none it is skipped
 * by the index scan and the events behind it are reached.
 */
const windowPerEvent = 10;

type Row = Selectable<WebhookEventsTable>;
type Params = { now: number; limit: number; leaseUntil: number; perKey: number; scan: number };
type Value = number | string;

// Casts: PostgreSQL cannot type a CASE whose every branch is a parameter.
const int = (n: Value) => sql`cast(${n} as integer)`;

/**
 * An event is claimed by its lease alone: its due time stays as it was, so the claim
 * returns it (the next attempt is counted from it), and a lease that runs out (its worker
 * died) leaves the event due again with no separate sweep.
 */
const notLeased = (now: Value) => sql`and (lease_until is null or lease_until <= ${now})`;

/** The statement; `skipped` and `capped` are the keys whose limits differ from `perKey`. */
function statement(
  dialect: Dialect,
  p: { [K in keyof Params]: Value },
  skipped: readonly number[],
  capped: readonly (readonly [number, number])[],
  held: readonly number[] = [],
) {
  const notSkipped = skipped.length > 0 ? sql`and key_id not in (${sql.join(skipped)})` : sql``;
  const notHeld = held.length > 0 ? sql`and (attempts > 0 or key_id not in (${sql.join(held)}))` : sql``;
  const perKey =
    capped.length > 0
      ? sql`case key_id ${sql.join(
          capped.map(([keyId, n]) => sql`when ${keyId} then ${int(n)}`),
          sql` `,
        )} else ${int(p.perKey)} end`
      : int(p.perKey);
  // Several workers on PostgreSQL: each skips rows another is claiming. The due test is
  // repeated where rows are locked, so a row another worker claimed meanwhile is re-checked.
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  return sql<Row>`
    update webhook_events set lease_until = ${p.leaseUntil}
    where id in (
      select id from webhook_events
      where id in (
        select id from (
          select id, next_attempt_at, row_number() over (partition by key_id order by next_attempt_at, id) as rn, key_id
          from (
            select id, key_id, next_attempt_at from webhook_events
            where state = 'pending' and next_attempt_at <= ${p.now} ${notLeased(p.now)} ${notSkipped} ${notHeld}
            order by next_attempt_at, id
            limit ${int(p.scan)}
          ) as candidates
        ) as ranked
        where rn <= ${perKey}
        order by rn, next_attempt_at, id
        limit ${int(p.limit)}
      )
      and state = 'pending' and next_attempt_at <= ${p.now} ${notLeased(p.now)}
      ${lock}
    )
    returning *`;
}

// With no key limited (the common case) the statement is compiled once per database.
const paramNames = ['now', 'limit', 'leaseUntil', 'perKey', 'scan'] as const;
const unlimitedOf = (dialect: Dialect) =>
  preparedQuery((db, p: Params) => ({ compile: () => statement(dialect, p, [], []).compile(db) }), paramNames);
const unlimited = { sqlite: unlimitedOf('sqlite'), postgres: unlimitedOf('postgres') };

/** Claims up to `limit` due events for `leaseUntil`, shared as `share` says. */
export async function claimFairly(
  db: Executor,
  dialect: Dialect,
  claim: { now: number; limit: number; leaseUntil: number },
  share: ClaimShare,
): Promise<Row[]> {
  const p: Params = { ...claim, perKey: share.perKey, scan: claim.limit * windowPerEvent };
  const held = [...(share.heldKeys ?? [])];
  if (share.keyLimits.size === 0 && held.length === 0) return (await db.executeQuery(unlimited[dialect](db, p))).rows;
  const limits = [...share.keyLimits];
  const skipped = limits.filter(([, n]) => n <= 0).map(([keyId]) => keyId);
  const capped = limits.filter(([, n]) => n > 0);
  return (await statement(dialect, p, skipped, capped, held).execute(db)).rows;
}
