/**
 * The claim that shares the carrier between lanes and accounts (docs/decisions.md, "Lanes
 * and fair shares of the carrier"). In one transaction:
 *
 * 1. The (lane, account) pairs with queued messages, found by skipping along the index
 *    `messages_lanes` (state, priority, account_id, ...): per lane, the least account above
 *    the last found, one seek per pair whatever the backlog behind each (a loose index
 *    scan, as a recursive query both databases run).
 * 2. With one pair or none, the plain claim in (priority, due_at, id) order: nothing to share.
 *    Then the next claims skip step 1 for a moment (`LaneShare.shouldScan`): one account
 *    sending alone pays for the look once every 50 ms, not at every claim.
 * 3. Otherwise each pair's oldest due messages (a few more than an equal share of the
 *    claim), read from the same index, and the caller's `LaneShare` chooses among them
 *    (lanes in order, accounts by weight and what each was given before).
 * 4. The chosen messages are claimed; on PostgreSQL rows another worker is claiming are
 *    skipped, and the claim may come back short (the next one takes more).
 */
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Executor } from '../executor.js';
import type { DialectSql } from '../dialect-sql.js';
import type { LaneCandidates, LaneShare } from '../../../ports/dispatch-queue.js';
import { laneOf, lanes, priorityOf } from '../../../domain/lanes.js';
import { moves } from '../../../domain/delivery-state.js';
import { preparedQuery } from '../prepared-query.js';

/** Pairs looked at per claim at most (a claim with more accounts waiting shares among the first found). */
const maxPairs = 500;

type PairRow = { priority: number | string; account_id: number | string; weight: number | string | null };

// Per lane, the next account above the last found: min() over an index prefix is one seek.
const nextAccount = (lane: RawBuilder<unknown>, above: RawBuilder<unknown> | null): RawBuilder<unknown> =>
  sql`(select min(m.account_id) from messages m where m.state = 'queued' and m.priority = ${lane}${
    above === null ? sql`` : sql` and m.account_id > ${above}`
  })`;

const pairsOf = preparedQuery(
  (db, p: { maxPairs: number }) => ({
    compile: () =>
      sql<PairRow>`
        with recursive pairs(p, a, n) as (
          ${sql.join(
            lanes.map(
              (lane) =>
                sql`select ${sql.raw(String(priorityOf(lane)))}, ${nextAccount(sql.raw(String(priorityOf(lane))), null)}, 1`,
            ),
            sql` union all `,
          )}
          union all
          select pairs.p, ${nextAccount(sql`pairs.p`, sql`pairs.a`)}, pairs.n + 1
          from pairs where pairs.a is not null and pairs.n < ${p.maxPairs}
        )
        select pairs.p as priority, pairs.a as account_id, acc.send_weight as weight
        from pairs left join accounts acc on acc.id = pairs.a
        where pairs.a is not null`.compile(db),
  }),
  ['maxPairs'],
);

/** The (lane, account) pairs with queued messages (due or not), and each account's weight. */
export async function waitingPairs(db: Executor): Promise<{ priority: number; accountId: number; weight: number }[]> {
  const rows = (await db.executeQuery(pairsOf(db, { maxPairs }))).rows;
  return rows.map((r) => ({
    priority: Number(r.priority),
    accountId: Number(r.account_id),
    weight: Math.max(1, Number(r.weight ?? 1)),
  }));
}

/** Each pair's oldest due messages, at most `perPair` each, oldest first. */
async function candidatesOf(
  db: Executor,
  pairs: readonly { priority: number; accountId: number; weight: number }[],
  now: number,
  perPair: number,
): Promise<LaneCandidates[]> {
  const parts = pairs.map(
    (p, i) => sql`select * from (
      select id, priority, account_id, due_at from messages
      where state = 'queued' and priority = ${p.priority} and account_id = ${p.accountId} and due_at <= ${now}
      order by due_at, id limit ${perPair}
    ) as ${sql.raw(`c${i}`)}`,
  );
  const { rows } = await sql<{ id: number | string; priority: number; account_id: number }>`${sql.join(
    parts,
    sql` union all `,
  )}`.execute(db);
  const byPair = new Map<string, LaneCandidates>();
  for (const p of pairs)
    byPair.set(`${p.priority}:${p.accountId}`, {
      lane: laneOf(p.priority),
      accountId: p.accountId,
      weight: p.weight,
      ids: [],
    });
  // Each part is in (due_at, id) order, and union all keeps each part's order.
  for (const r of rows) byPair.get(`${Number(r.priority)}:${Number(r.account_id)}`)?.ids.push(Number(r.id));
  return [...byPair.values()].filter((c) => c.ids.length > 0);
}

/**
 * The ids of messages claimed, shared by `share`; null when one pair or none waits (the
 * caller's plain claim in queue order is then the same and cheaper).
 */
export async function claimShared(
  db: Executor,
  dialect: DialectSql,
  claim: { now: number; limit: number; leaseUntil: number },
  share: LaneShare,
): Promise<number[] | null> {
  if (!share.shouldScan()) return null;
  const pairs = await waitingPairs(db);
  share.learnWeights(pairs.map((p) => ({ accountId: p.accountId, weight: p.weight })));
  if (pairs.length <= 1) return null;
  // A little over an equal share each, so an account with fewer due leaves its room to others.
  const perPair = Math.min(claim.limit, Math.ceil((2 * claim.limit) / pairs.length) + 1);
  let candidates = await candidatesOf(db, pairs, claim.now, perPair);
  let chosen = share.choose(candidates, claim.limit);
  // Short, while some accounts may have more than was read: read those up to the whole
  // claim and choose again (a short claim makes the dispatcher think the store drained).
  const full = candidates.filter((c) => c.ids.length >= perPair);
  if (chosen.length < claim.limit && full.length > 0 && perPair < claim.limit) {
    const more = await candidatesOf(
      db,
      pairs.filter((p) => full.some((c) => c.accountId === p.accountId && c.lane === laneOf(p.priority))),
      claim.now,
      claim.limit,
    );
    candidates = [...candidates.filter((c) => !full.includes(c)), ...more];
    chosen = share.choose(candidates, claim.limit);
  }
  if (chosen.length === 0) return [];
  // The state kept off messages_lanes (SQLite's unary +): offered its state, SQLite's planner
  // scanned every queued message (a whole backlog) to take a claim's few.
  const state = dialect.unindexed('state');
  const { rows } = await sql<{ id: number | string }>`
    update messages set state = ${moves.claim.to[0]}, lease_until = ${claim.leaseUntil}, attempts = attempts + 1
    where id in (
      select id from messages where id in (${sql.join(chosen)}) and ${state} = ${moves.claim.from[0]} ${dialect.claimClause}
    )
    returning id`.execute(db);
  return rows.map((r) => Number(r.id));
}
