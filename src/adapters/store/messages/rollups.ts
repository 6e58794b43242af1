/**
 * The panel's rollups (`daily_counts` per account and Istanbul day of creation,
 * `send_counts` per send; migration 0015's tables), kept by the writes of messages
 * themselves since migration 0016 dropped 0015's triggers: a write sums what it inserted or
 * moved into or out of delivered / failed (failed or expired), and adds the sums in one
 * statement per rollup, in the transaction of the write. Row triggers cost each accepted
 * /sms/send about 10 µs of server CPU; a batch of sends touches a rollup row once.
 *
 * The rows go in key order (account and day; send), so that concurrent transactions on
 * PostgreSQL lock the rollup rows they share in one order and cannot deadlock on them.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { DailyCountsTable, MessagesTable, SendCountsTable } from '../schema.js';
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

/** The sums a transaction adds to the rollups, written with `write` once its messages are written. */
export class RollupDeltas {
  private readonly days = new Map<string, DailyRow>();
  private readonly sends = new Map<number, SendRow>();

  /** Messages inserted (in whatever state they are inserted in). */
  inserted(
    rows: readonly Pick<Insertable<MessagesTable>, 'account_id' | 'send_id' | 'created_at' | 'sms_count' | 'state'>[],
  ): void {
    for (const r of rows) {
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

  /** Adds the sums to the rollups: one statement per rollup (per `preparedChunk` rows), in key order. */
  async write(db: Executor): Promise<void> {
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
