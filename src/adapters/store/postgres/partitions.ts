/**
 * PostgreSQL: the partitions of `messages` (RANGE on id, migration 0019), kept by retention's
 * sweeps. Ahead: while the id sequence comes within half a partition of the top bound, a new
 * partition of `widthIds` ids is made above it (above any id the DEFAULT partition took, so
 * it never overlaps one). Behind: a partition wholly below the sequence whose every message is
 * finished, older than the cut-off and of a finished send is detached and dropped, after its
 * messages' parts are deleted in batches (parts are not partitioned). What is not droppable is
 * left to the batched deletes.
 */
import { sql } from 'kysely';
import type { Kysely, QueryResult } from 'kysely';
import type { Database } from '../schema.js';
import { statementTimedOut } from './bounded-pool.js';

/** A range partition of messages: ids from `from` (null: MINVALUE) up to `to`, exclusive. */
interface RangePartition {
  name: string;
  from: bigint | null;
  to: bigint;
}

const partsBatch = 1000;

async function rangePartitions(db: Kysely<Database>): Promise<{ ranges: RangePartition[]; hasDefault: boolean }> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass('messages')`.execute(db);
  const ranges: RangePartition[] = [];
  let hasDefault = false;
  for (const { name, bound } of rows) {
    if (bound === 'DEFAULT') {
      hasDefault = true;
      continue;
    }
    const match = /FROM \((MINVALUE|'(-?\d+)')\) TO \('(-?\d+)'\)/.exec(bound);
    if (match?.[3] === undefined) continue;
    ranges.push({ name, from: match[2] === undefined ? null : BigInt(match[2]), to: BigInt(match[3]) });
  }
  ranges.sort((a, b) => (a.to < b.to ? -1 : 1));
  return { ranges, hasDefault };
}

/** What one round of upkeep did. */
export interface PartitionUpkeep {
  created: number;
  dropped: number;
}

export async function keepMessagePartitions(
  db: Kysely<Database>,
  before: number,
  widthIds: number,
  stopping: () => boolean = () => false,
): Promise<PartitionUpkeep> {
  const { ranges, hasDefault } = await rangePartitions(db);
  // A store that is not partitioned (SQLite never is; a PostgreSQL store before 0019 cannot be here).
  if (!hasDefault) return { created: 0, dropped: 0 };
  const { rows } = await sql<{ last: string }>`select last_value::text as last from haberci_ids`.execute(db);
  const last = BigInt(rows[0]?.last ?? '0');
  const width = BigInt(widthIds);
  let created = 0;
  let top = ranges.reduce((max, r) => (r.to > max ? r.to : max), 0n);
  while (last + width >= top) {
    const made = await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '2s'`.execute(trx);
      const { rows: above } = await sql<{
        max: string | null;
      }>`select max(id)::text as max from messages_pdefault`.execute(trx);
      const inDefault = above[0]?.max === null || above[0]?.max === undefined ? 0n : BigInt(above[0].max);
      const from = top > inDefault ? top : inDefault + 1n;
      const to = from + width;
      await sql`create table ${sql.id(`messages_p${from}`)} partition of messages for values from (${sql.raw(from.toString())}) to (${sql.raw(to.toString())})`.execute(
        trx,
      );
      return to;
    });
    top = made;
    created++;
  }
  let dropped = 0;
  for (const range of ranges) {
    if (stopping()) break;
    // Only partitions no new id can go to, and never the DEFAULT one.
    if (range.to > last) continue;
    const from = range.from ?? -(2n ** 63n);
    // On a large partition this reads every row, and may outlast the statement bound: then
    // the partition is kept this round, and the batched deletes remove its rows instead.
    const keep = await droppableCheck(
      sql<{ keep: boolean }>`
      select exists (
        select 1 from ${sql.id(range.name)} m
        where m.created_at >= ${before}
          or m.state not in ('delivered', 'failed', 'expired', 'cancelled')
          or not exists (
            select 1 from sends s join send_counts c on c.send_id = s.id
            where s.id = m.send_id and s.pending_recipients is null and (c.delivered + c.failed >= c.messages
              or (s.control = 'cancelled' and not exists (
                select 1 from messages u where u.send_id = s.id
                and u.state not in ('delivered', 'failed', 'expired', 'cancelled')))))
      ) as keep`.execute(db),
    );
    if (keep[0]?.keep !== false) continue;
    await deleteInBatches(db, 'message_parts', 'carrier_message_id', { from, to: range.to }, stopping);
    // Stopped with parts left: the partition stays for the next sweep.
    if (stopping()) break;
    // The partition's rows of the panel's number search (migration 0035), in batches like the
    // parts, by their index on message_id (one row a message).
    await deleteInBatches(db, 'message_numbers', 'message_id', { from, to: range.to }, stopping);
    if (stopping()) break;
    try {
      await db.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '2s'`.execute(trx);
        await sql`alter table messages detach partition ${sql.id(range.name)}`.execute(trx);
        await sql`drop table ${sql.id(range.name)}`.execute(trx);
      });
      dropped++;
    } catch {
      // The parent was busy past the lock timeout: the next sweep tries again.
    }
  }
  return { created, dropped };
}

/**
 * Deletes a table's rows of the messages with ids in `from` to `to` (exclusive), `partsBatch`
 * at a time through the table's index on `key`, until none are left or `stopping()`.
 */
async function deleteInBatches(
  db: Kysely<Database>,
  table: 'message_parts' | 'message_numbers',
  key: 'carrier_message_id' | 'message_id',
  ids: { from: bigint; to: bigint },
  stopping: () => boolean,
): Promise<void> {
  for (;;) {
    const gone = await sql`
      delete from ${sql.id(table)} where ${sql.id(key)} in (
        select ${sql.id(key)} from ${sql.id(table)} where message_id >= ${ids.from.toString()} and message_id < ${ids.to.toString()} limit ${partsBatch})`.execute(
      db,
    );
    if (Number(gone.numAffectedRows ?? 0n) < partsBatch || stopping()) return;
  }
}

/** The rows of the droppable check; none (keep the partition) when it ran past the statement bound. */
async function droppableCheck(check: Promise<QueryResult<{ keep: boolean }>>): Promise<{ keep: boolean }[]> {
  try {
    return (await check).rows;
  } catch (error) {
    if (statementTimedOut(error)) return [];
    throw error;
  }
}
