/**
 * The panel's rollups (`daily_counts` per account and Istanbul day of creation,
 * `send_counts` per send; migration 0015's tables), derived after the commit since
 * migration 0035. A write of messages sums what it inserted or moved into or out of
 * delivered / failed (failed or expired) and appends the sums as one row of `count_deltas`
 * (`queue`), in the transaction of the write: one plain insert per transaction, where adding
 * them to the rollups there cost an upsert per (account, day) and per send. The deriver
 * (`deriveRollups` in derived-counts-store.ts, run by src/jobs/count-deriver.ts) merges
 * queued rows and adds them (`apply`) in the transaction that deletes those rows.
 *
 * The rollup rows go in key order (account and day; send), so that concurrent transactions on
 * PostgreSQL lock the rollup rows they share in one order and cannot deadlock on them.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { CountDeltasTable, DailyCountsTable, MessagesTable, SendCountsTable } from '../schema.js';
import type { Executor } from '../executor.js';
import { columnsOf, preparedRows } from '../prepared-query.js';
import { preparedChunk } from './statements.js';
import { istanbulDay } from '../../../domain/istanbul-time.js';
import type { DeliveryState } from '../../../domain/delivery-state.js';

type DailyRow = Insertable<DailyCountsTable>;
type SendRow = Insertable<SendCountsTable>;
const countColumns = { messages: true, sms: true, delivered: true, failed: true } as const;

const dailyUpsert = preparedRows(
  (db, rows: DailyRow[]) =>
    db
      .insertInto('daily_counts')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['account_id', 'day']).doUpdateSet({
          messages: sql<number>`daily_counts.messages + excluded.messages`,
          sms: sql<number>`daily_counts.sms + excluded.sms`,
          delivered: sql<number>`daily_counts.delivered + excluded.delivered`,
          failed: sql<number>`daily_counts.failed + excluded.failed`,
        }),
      ),
  columnsOf<DailyRow>({ account_id: true, day: true, ...countColumns }),
);
const sendUpsert = preparedRows(
  (db, rows: SendRow[]) =>
    db
      .insertInto('send_counts')
      .values(rows)
      .onConflict((oc) =>
        oc.column('send_id').doUpdateSet({
          messages: sql<number>`send_counts.messages + excluded.messages`,
          sms: sql<number>`send_counts.sms + excluded.sms`,
          delivered: sql<number>`send_counts.delivered + excluded.delivered`,
          failed: sql<number>`send_counts.failed + excluded.failed`,
        }),
      ),
  columnsOf<SendRow>({ send_id: true, ...countColumns }),
);

type QueueRow = Pick<Insertable<CountDeltasTable>, 'deltas'>;
const queueInsert = preparedRows(
  (db, rows: QueueRow[]) => db.insertInto('count_deltas').values(rows),
  columnsOf<QueueRow>({ deltas: true }),
);

/** A queued row's JSON: days as [account, day, messages, sms, delivered, failed], sends as [send, messages, sms, delivered, failed]. */
interface Queued {
  d: [number, number, number, number, number, number][];
  s: [number, number, number, number, number][];
  /** The messages inserted, by send: [send, lowest id, highest id] (a write's ids of one send: its own, and no other write's between). */
  m?: [number, number, number][];
}

/** Messages of one send inserted by one write, for the number search (`message_numbers`). */
export interface InsertedRange {
  sendId: number;
  lo: number;
  hi: number;
}

const isDelivered = (state: DeliveryState): number => (state === 'delivered' ? 1 : 0);
const isFailed = (state: DeliveryState): number => (state === 'failed' || state === 'expired' ? 1 : 0);

/** What a message counts in the rollups' columns. */
interface Counts {
  messages: number;
  sms: number;
  delivered: number;
  failed: number;
}

/** A message as the rollups key it. */
export interface CountedMessage {
  account_id: number;
  send_id: number;
  created_at: number;
}

/** The sums a transaction adds to the rollups, queued with `queue` once its messages are written. */
export class RollupDeltas {
  private readonly days = new Map<string, DailyRow>();
  private readonly sends = new Map<number, SendRow>();
  private readonly ranges = new Map<number, InsertedRange>();

  /** Messages inserted (in whatever state they are inserted in). */
  inserted(
    rows: readonly Pick<
      Insertable<MessagesTable>,
      'id' | 'account_id' | 'send_id' | 'created_at' | 'sms_count' | 'state'
    >[],
  ): void {
    for (const r of rows) {
      const sendId = Number(r.send_id);
      const id = Number(r.id);
      const range = this.ranges.get(sendId);
      if (!range) this.ranges.set(sendId, { sendId, lo: id, hi: id });
      else {
        range.lo = Math.min(range.lo, id);
        range.hi = Math.max(range.hi, id);
      }
      const state = r.state ?? 'queued';
      this.add(r, { messages: 1, sms: r.sms_count, delivered: isDelivered(state), failed: isFailed(state) });
    }
  }

  /** A message moved from one state to another (nothing to add unless it entered or left delivered / failed / expired). */
  moved(message: CountedMessage, from: DeliveryState, to: DeliveryState): void {
    const delivered = isDelivered(to) - isDelivered(from);
    const failed = isFailed(to) - isFailed(from);
    if (delivered !== 0 || failed !== 0) this.add(message, { messages: 0, sms: 0, delivered, failed });
  }

  /** Nothing summed yet (or everything written). */
  get empty(): boolean {
    return this.sends.size === 0;
  }

  /** Appends the sums to the queue of the deriver: one row, in the caller's transaction. */
  async queue(db: Executor): Promise<void> {
    if (this.sends.size === 0) return;
    const queued: Queued = {
      d: [...this.days.values()].map((r) => [r.account_id, r.day, r.messages, r.sms, r.delivered, r.failed]),
      s: [...this.sends.values()].map((r) => [r.send_id, r.messages, r.sms, r.delivered, r.failed]),
    };
    if (this.ranges.size > 0) queued.m = [...this.ranges.values()].map((r) => [r.sendId, r.lo, r.hi]);
    this.days.clear();
    this.sends.clear();
    this.ranges.clear();
    await db.executeQuery(queueInsert(db, [{ deltas: JSON.stringify(queued) }]));
  }

  /** Adds the sums of a queued row (its `deltas` text) to these. */
  addQueued(text: string): void {
    const queued = JSON.parse(text) as Queued;
    for (const [account_id, day, messages, sms, delivered, failed] of queued.d) {
      const c = { messages, sms, delivered, failed };
      const key = `${account_id}:${day}`;
      const d = this.days.get(key);
      if (d) addTo(d, c);
      else this.days.set(key, { account_id, day, ...c });
    }
    for (const [send_id, messages, sms, delivered, failed] of queued.s) {
      const c = { messages, sms, delivered, failed };
      const s = this.sends.get(send_id);
      if (s) addTo(s, c);
      else this.sends.set(send_id, { send_id, ...c });
    }
    for (const [sendId, lo, hi] of queued.m ?? []) this.inserts.push({ sendId, lo, hi });
  }

  /** The ranges of inserted messages of the queued rows added (`addQueued`), for the number search. */
  readonly inserts: InsertedRange[] = [];

  /** Adds the sums to the rollups: one statement per rollup (per `preparedChunk` rows), in key order. */
  async apply(db: Executor): Promise<void> {
    if (this.sends.size === 0) return;
    const days = [...this.days.values()].sort((a, b) => a.account_id - b.account_id || a.day - b.day);
    const sends = [...this.sends.values()].sort((a, b) => a.send_id - b.send_id);
    this.days.clear();
    this.sends.clear();
    for (let start = 0; start < days.length; start += preparedChunk)
      await db.executeQuery(dailyUpsert(db, days.slice(start, start + preparedChunk)));
    for (let start = 0; start < sends.length; start += preparedChunk)
      await db.executeQuery(sendUpsert(db, sends.slice(start, start + preparedChunk)));
  }

  private add(m: CountedMessage, c: Counts): void {
    const accountId = Number(m.account_id);
    const day = istanbulDay(Number(m.created_at));
    const dayKey = `${accountId}:${day}`;
    const d = this.days.get(dayKey);
    if (d) addTo(d, c);
    else this.days.set(dayKey, { account_id: accountId, day, ...c });
    const sendId = Number(m.send_id);
    const s = this.sends.get(sendId);
    if (s) addTo(s, c);
    else this.sends.set(sendId, { send_id: sendId, ...c });
  }
}

function addTo(row: Counts, c: Counts): void {
  row.messages += c.messages;
  row.sms += c.sms;
  row.delivered += c.delivered;
  row.failed += c.failed;
}
