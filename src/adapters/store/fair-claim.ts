/**
 * The webhook courier's claim that shares its slots among destinations: due events ranked
 * per key (oldest first) and taken round-robin, the first of each key, then the second...,
 * at most a number per key; keys whose destination has no free slot are skipped.
 *
 * Two statements in the caller's transaction, the ranking between them in JavaScript: the
 * oldest due events (a window of them, read by the due index), then the lease of the chosen
 * ones by id. One statement that ranked with a window function and leased in its subquery
 * cost SQLite 3 to 10 ms a claim behind a backlog of 20,000: its planner scanned the due
 * index for the lease instead of probing the ids (so the lease's due test is kept off that
 * index); these two cost about 1 ms. The lease
 * checks again that each event is still due and free: on PostgreSQL another worker may have
 * claimed one between the two statements, and it is skipped (its row locked: SKIP LOCKED) or
 * no longer due, so several workers never claim one event at once. On SQLite the caller's
 * transaction holds the write lock, so nothing changes between them.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { ClaimShare } from '../../ports/event-store.js';
import { perDialect, type DialectSql } from './dialect-sql.js';
import type { Executor } from './executor.js';
import type { WebhookEventsTable } from './schema.js';
import { preparedList, preparedQuery } from './prepared-query.js';

/**
 * Due events looked at per claim, as a multiple of the claim's size: the ranking reads
 * only the oldest due events, so its cost does not grow with a backlog. A backlog of one
 * key fills the window only while that key has free slots; once it has none it is skipped
 * by the index scan and the events behind it are reached.
 */
const windowPerEvent = 10;

type Row = Selectable<WebhookEventsTable>;
type Candidate = { id: number | string; key_id: number | string; next_attempt_at: number | string };

/**
 * An event is claimed by its lease alone: its due time stays as it was, so the claim
 * returns it (the next attempt is counted from it), and a lease that runs out (its worker
 * died) leaves the event due again with no separate sweep.
 */
const due = (now: number | string) =>
  sql`state = 'pending' and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})`;

function candidates(now: number | string, scan: number | string, skipped: readonly number[], held: readonly number[]) {
  const notSkipped = skipped.length > 0 ? sql`and key_id not in (${sql.join(skipped)})` : sql``;
  const notHeld = held.length > 0 ? sql`and (attempts > 0 or key_id not in (${sql.join(held)}))` : sql``;
  return sql<Candidate>`
    select id, key_id, next_attempt_at from webhook_events
    where ${due(now)} ${notSkipped} ${notHeld}
    order by next_attempt_at, id
    limit cast(${scan} as integer)`;
}

// With no key skipped or held (the common case) the window's statement is compiled once per database.
const window = preparedQuery(
  (db, p: { now: number; scan: number }) => ({ compile: () => candidates(p.now, p.scan, [], []).compile(db) }),
  ['now', 'scan'],
);

const leaseOf = perDialect((dialect) =>
  preparedList(
    (db, p: { now: number; leaseUntil: number }, ids: number[]) => ({
      compile: () =>
        // The due test kept off the due index (SQLite's unary +): offered its (state,
        // next_attempt_at), SQLite's planner scanned every due event instead of probing 30 ids.
        sql<Row>`
          update webhook_events set lease_until = ${p.leaseUntil}
          where id in (
            select id from webhook_events
            where id in (${sql.join(ids)}) and ${dialect.unindexed('state')} = 'pending'
              and ${dialect.unindexed('next_attempt_at')} <= ${p.now}
              and (lease_until is null or lease_until <= ${p.now}) ${dialect.claimClause}
          )
          returning *`.compile(db),
    }),
    ['now', 'leaseUntil'],
  ),
);

/** The most events one claim takes when keys take buckets (a slot then carries up to 100). */
const maxBucketClaim = 1_000;

/**
 * The events to claim of a window (oldest due first): each key's n-th event ranks n, and
 * they are taken by rank, then age, at most `perKey` (or the key's own limit) of a key.
 */
function choose(window: readonly Candidate[], limit: number, share: ClaimShare): number[] {
  if (share.bucketSizes !== undefined && share.bucketSizes.size > 0) return chooseSlots(window, limit, share);
  const taken = new Map<number, number>();
  const ranked: { id: number; rank: number; at: number }[] = [];
  for (const [at, c] of window.entries()) {
    const key = Number(c.key_id);
    const rank = (taken.get(key) ?? 0) + 1;
    taken.set(key, rank);
    if (rank <= (share.keyLimits.get(key) ?? share.perKey)) ranked.push({ id: Number(c.id), rank, at });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.at - b.at);
  return ranked.slice(0, limit).map((r) => r.id);
}

/**
 * As choose, counted in slots (attempts) rather than events: a key that takes buckets of N
 * fills one slot with N events, so its n-th event ranks ceil(n / N), and `limit` and the
 * keys' limits count slots. Keys share slots as fairly as before, whatever their buckets.
 */
function chooseSlots(window: readonly Candidate[], limit: number, share: ClaimShare): number[] {
  const sizes = share.bucketSizes ?? new Map<number, number>();
  const taken = new Map<number, number>();
  const ranked: { id: number; key: number; rank: number; at: number }[] = [];
  for (const [at, c] of window.entries()) {
    const key = Number(c.key_id);
    const n = (taken.get(key) ?? 0) + 1;
    taken.set(key, n);
    const rank = Math.ceil(n / (sizes.get(key) ?? 1));
    if (rank <= (share.keyLimits.get(key) ?? share.perKey)) ranked.push({ id: Number(c.id), key, rank, at });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.at - b.at);
  const slots = new Set<string>();
  const out: number[] = [];
  for (const r of ranked) {
    const slot = `${r.key}:${r.rank}`;
    if (!slots.has(slot)) {
      if (slots.size >= limit) continue;
      slots.add(slot);
    }
    out.push(r.id);
    if (out.length >= maxBucketClaim) break;
  }
  return out;
}

/** Claims up to `limit` due events for `leaseUntil`, shared as `share` says. */
export async function claimFairly(
  db: Executor,
  dialect: DialectSql,
  claim: { now: number; limit: number; leaseUntil: number },
  share: ClaimShare,
): Promise<Row[]> {
  // A key's bucket fills a slot with up to 100 events: the window reaches that far too.
  const largest = share.bucketSizes ? Math.max(1, ...share.bucketSizes.values()) : 1;
  const scan = claim.limit * windowPerEvent + (largest > 1 ? Math.min(claim.limit, 20) * largest : 0);
  const held = [...(share.heldKeys ?? [])];
  const skipped = [...share.keyLimits].filter(([, n]) => n <= 0).map(([keyId]) => keyId);
  const rows =
    skipped.length === 0 && held.length === 0
      ? (await db.executeQuery(window(db, { now: claim.now, scan }))).rows
      : (await candidates(claim.now, scan, skipped, held).execute(db)).rows;
  const ids = choose(rows, claim.limit, share);
  if (ids.length === 0) return [];
  return (await db.executeQuery(leaseOf(dialect)(db, { now: claim.now, leaseUntil: claim.leaseUntil }, ids))).rows;
}
