/**
 * The work a cancel shares with its settling (campaign-controls.ts; migration 0063): a send's
 * list written out, its waiting messages cancelled, each one's credit given back once (from
 * the credit given back ahead first) with its sms.cancelled event. `settleCancels` is the
 * dispatcher's expander's part: a large cancel's rest, a chunk per call.
 */
import { sql } from 'kysely';
import type { RawBuilder, Selectable } from 'kysely';
import type { SendsTable } from '../schema.js';
import type { BalanceBucket } from '../../../ports/accounts.js';
import type { NewMessage } from '../../../ports/messages.js';
import { refundOnce } from '../refunds.js';
import type { CreditAhead } from '../refunds.js';
import type { SmsLang } from '../../../ports/carrier.js';
import type { DueExpansion, Transition, WriteOut } from '../../../ports/dispatch-queue.js';
import type { CancelOutcome } from '../../../ports/campaign-controls.js';
import type { CommercialTally } from '../../../domain/iys.js';
import { moves } from '../../../domain/delivery-state.js';
import { cancelRefundReason } from '../../../domain/refunds.js';
import { isTurkeyNumber } from '../../../domain/recipients.js';
import { StorePart } from '../store-part.js';
import type { PartContext } from '../store-part.js';
import { SqlMessageStore } from './message-store.js';
import { recordEvents } from './receipts.js';

/** The reason of a cancel's refunds in the ledger (and in `refunds`). */
export const cancelReason = cancelRefundReason;
export const cancelledDetail = 'Cancelled by the customer before sending';

export type CancelledRow = {
  id: number | string;
  send_id: number | string;
  key_id: number;
  account_id: number;
  recipient: string;
  sms_count: number;
};

/**
 * Messages a cancel settles in its own transaction. A larger send is counted and its credit
 * given back in that transaction too, and the rest of its messages are cancelled after it,
 * this many at a time, by the dispatcher's expander (`settleCancels`, migration 0063), so
 * the answer comes within a second whatever the size of the send.
 */
export const cancelledAtOnce = 1000;

/** The columns of a send its cancel, its settling and the expander read. */
export const sendColumns = [
  'id',
  'account_id',
  'key_id',
  'kind',
  'text',
  'lang',
  'sandbox',
  'priority',
  'total_numbers',
  'expanded_count',
  'pending_recipients',
  'iys',
  'control',
  'send_window',
  'speed',
  'valid_until',
  'pace_next_at',
] as const;

export type SendRow = Pick<Selectable<SendsTable>, (typeof sendColumns)[number]>;

/** The send as the expander sees its list (src/services/deferred-messages.ts). */
export function dueOf(send: SendRow): DueExpansion {
  return {
    id: Number(send.id),
    accountId: send.account_id,
    keyId: send.key_id,
    kind: send.kind,
    text: send.text,
    lang: send.lang as SmsLang,
    sandbox: send.sandbox === 1,
    priority: send.priority,
    expandedCount: send.expanded_count,
    pendingRecipients: send.pending_recipients ?? '',
    iys: send.iys === null ? null : (JSON.parse(send.iys) as CommercialTally),
  };
}

/** Inserts messages of a send written out from its list (expanded, or cancelled on the way), created now. */
export async function insertChunk(
  context: PartContext,
  due: DueExpansion,
  messages: readonly NewMessage[],
  now: number,
): Promise<void> {
  const writes = new SqlMessageStore(context);
  const ids = await writes.allocateIds(messages.length);
  await writes.insertMessagesOf([
    {
      send: {
        id: due.id,
        accountId: due.accountId,
        keyId: due.keyId,
        sandbox: due.sandbox,
        createdAt: now,
        dueAt: now,
        priority: due.priority,
      },
      ids,
      messages,
    },
  ]);
}

export const bucketOf = (recipient: string): BalanceBucket => (isTurkeyNumber(recipient) ? 'main' : 'international');

export class SqlCancelWork extends StorePart {
  async settleCancels(now: number, writeOut: WriteOut, limit: number): Promise<number> {
    // Looked at first outside a transaction: most rounds find none and take no write lock.
    if (!(await this.db.selectFrom('cancel_settlements').select('send_id').limit(1).executeTakeFirst())) return 0;
    return this.transact(async (self) => {
      const settlement = await self.db
        .selectFrom('cancel_settlements')
        .selectAll()
        .orderBy('send_id')
        .limit(1)
        .$call((qb) => self.sql.claim(qb))
        .executeTakeFirst();
      if (!settlement) return 0;
      const id = Number(settlement.send_id);
      const send = await self.db
        .selectFrom('sends')
        .select(sendColumns)
        .where('id', '=', id)
        .$call((qb) => self.sql.forUpdate(qb))
        .executeTakeFirst();
      let written = 0;
      if (send && send.pending_recipients !== null) {
        const due = dueOf(send);
        const chunk = writeOut(due, send.expanded_count, send.expanded_count + limit);
        await self.writeChunk(due, send.expanded_count, chunk, chunk.length < limit, now);
        written = chunk.length;
      }
      const rows = await self.cancelMessages(
        sql`id in (select id from messages where send_id = ${id} and state in (${sql.join(moves.cancel.from)}) order by id limit ${limit})`,
        now,
      );
      const ahead: CreditAhead = { main: settlement.prepaid_main, international: settlement.prepaid_international };
      await self.settleCancelled(rows, `send:${id}`, now, ahead);
      const more = written > 0 || rows.length === limit;
      if (more) {
        await self.db
          .updateTable('cancel_settlements')
          .set({ prepaid_main: ahead.main, prepaid_international: ahead.international })
          .where('send_id', '=', id)
          .execute();
      } else {
        await self.db.deleteFrom('cancel_settlements').where('send_id', '=', id).execute();
      }
      return Math.max(1, written + rows.length);
    });
  }

  /** Writes recipients [from, from + messages.length) of the send; `done`: they are the last of its list. */
  async writeChunk(due: DueExpansion, from: number, messages: readonly NewMessage[], done: boolean, now: number) {
    if (messages.length > 0) {
      await insertChunk(this.context, due, messages, now);
    }
    await this.db
      .updateTable('sends')
      .set({
        expanded_count: from + messages.length,
        ...(done ? { pending_recipients: null } : {}),
        expand_lease_until: null,
      })
      .where('id', '=', due.id)
      .execute();
  }

  /** Cancels the waiting messages `which` selects (a condition on `id`). */
  async cancelMessages(which: RawBuilder<unknown>, now: number): Promise<CancelledRow[]> {
    const { rows } = await sql<CancelledRow>`
      update messages set state = ${moves.cancel.to[0]}, done_at = ${now}, lease_until = null,
        detail = ${cancelledDetail}
      where ${which} and state in (${sql.join(moves.cancel.from)})
      returning id, send_id, key_id, account_id, recipient, sms_count`.execute(this.db);
    return rows;
  }

  /**
   * Messages a dispatcher gave back (held now) whose send was cancelled since it claimed them:
   * cancelled with their credit back, unless the send's large cancel is still being settled
   * (its settling takes them then, from the credit it gave back ahead and past it). They were
   * claimed when the cancel counted, so no cancel gave their credit back yet.
   */
  async settleHeld(ids: readonly number[], now: number): Promise<Transition[]> {
    const transitions: Transition[] = [];
    for (let from = 0; from < ids.length; from += cancelledAtOnce) {
      const slice = ids.slice(from, from + cancelledAtOnce);
      const rows = await this.cancelMessages(
        sql`id in (${sql.join(slice)}) and send_id in (select id from sends where control = 'cancelled')
          and send_id not in (select send_id from cancel_settlements)`,
        now,
      );
      const bySend = new Map<number, CancelledRow[]>();
      for (const r of rows) bySend.set(Number(r.send_id), [...(bySend.get(Number(r.send_id)) ?? []), r]);
      for (const [sendId, cancelled] of bySend)
        await this.settleCancelled(cancelled, `send:${sendId}`, now, undefined, transitions);
    }
    return transitions;
  }

  /**
   * The refunds and events of messages just cancelled, in the cancel's transaction; their
   * transitions (marked where an event was written, which wakes the webhook courier) go to
   * `transitions` when given.
   */
  async settleCancelled(
    rows: readonly CancelledRow[],
    reference: string,
    now: number,
    ahead?: CreditAhead,
    transitions?: Transition[],
  ): Promise<CancelOutcome> {
    const refunded = await refundOnce(
      this.context,
      rows.map((r) => ({
        key: `message:${Number(r.id)}`,
        accountId: r.account_id,
        bucket: bucketOf(r.recipient),
        amount: Number(r.sms_count),
      })),
      cancelReason,
      reference,
      now,
      ahead,
    );
    const made: Transition[] = rows.map((r) => ({
      messageId: Number(r.id),
      keyId: r.key_id,
      state: 'cancelled',
    }));
    await recordEvents(this.db, made, now);
    if (transitions) for (const t of made) transitions.push(t);
    return { cancelled: rows.length, refunded };
  }
}
