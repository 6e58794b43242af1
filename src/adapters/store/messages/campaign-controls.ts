/**
 * Cancel, pause and resume of a send (src/ports/campaign-controls.ts). Each locks the send's
 * row first (PostgreSQL; SQLite has one writer), so the expander's next chunk, guarded by
 * the send's `expanded_count` and `control`, cannot slip in between. Messages move only
 * along the edges of domain/delivery-state, guarded in SQL by their `from` states: a claim
 * (queued ──▶ submitting) and a cancel (queued ──▶ cancelled) of the same row are one after
 * the other on either store, and the second finds the row no longer in its `from` state.
 * A cancel of more than `cancelledAtOnce` waiting messages counts them all and gives their
 * credit back in its transaction, and leaves their cancelling to the settling (cancel-work.ts).
 */
import { sql } from 'kysely';
import { credit } from '../refunds.js';
import type { CreditAhead } from '../refunds.js';
import type {
  CampaignControls,
  CancelCommit,
  CancelOutcome,
  CancelPreview,
  InFlightSettling,
  ControlOutcome,
  SendTarget,
  WriteOut,
} from '../../../ports/campaign-controls.js';
import { moves } from '../../../domain/delivery-state.js';
import { StorePart } from '../store-part.js';
import { SqlCancelWork, bucketOf, cancelReason, cancelledAtOnce, dueOf, sendColumns } from './cancel-work.js';
import type { SendRow } from './cancel-work.js';
import { decodeWindow, dueTimes } from '../../../domain/send-controls.js';

/** In-flight messages a cancel follows at most: the dispatchers' windows hold far fewer. */
const maxInFlightCounted = 10_000;

export class SqlCampaignControls extends StorePart implements CampaignControls {
  /** The send's row, locked until the transaction ends (PostgreSQL). */
  private async lockedSend(target: SendTarget) {
    return this.db
      .selectFrom('sends')
      .select(sendColumns)
      .where('id', '=', target.sendId)
      .where('account_id', '=', target.accountId)
      .where('kind', 'in', [...target.kinds])
      .$call((qb) => this.sql.forUpdate(qb))
      .executeTakeFirst();
  }

  async cancelSend(target: SendTarget, now: number, writeOut: WriteOut): Promise<CancelCommit | null> {
    const outcome = await this.cancelled(target, now, writeOut);
    if (!outcome) return null;
    // Committed: no claim takes the send's messages from now on, so those claimed are all there are.
    const inFlight = await this.db
      .selectFrom('messages')
      .select('id')
      .where('send_id', '=', target.sendId)
      .where('state', '=', moves.retry.from[0])
      .limit(maxInFlightCounted)
      .execute();
    return { ...outcome, inFlight: inFlight.map((m) => Number(m.id)) };
  }

  async inFlightSettling(messageIds: readonly number[]): Promise<InFlightSettling> {
    const settling: InFlightSettling = { submitting: 0, cancelled: 0, refunded: 0 };
    for (let from = 0; from < messageIds.length; from += 1000) {
      const rows = await this.db
        .selectFrom('messages')
        .select(['state', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('sms_count').as('sms')])
        .where('id', 'in', messageIds.slice(from, from + 1000))
        // Held: given back while a large cancel of the send is settled, which cancels them.
        .where('state', 'in', [moves.retry.from[0], moves.cancel.to[0], moves.pause.to[0]])
        .groupBy('state')
        .execute();
      for (const r of rows) {
        if (r.state !== moves.retry.from[0]) {
          settling.cancelled += Number(r.n);
          settling.refunded += Number(r.sms);
        } else settling.submitting += Number(r.n);
      }
    }
    return settling;
  }

  private async cancelled(target: SendTarget, now: number, writeOut: WriteOut): Promise<CancelOutcome | null> {
    return this.transact(async (self) => {
      const send = await self.lockedSend(target);
      if (!send) return null;
      const id = Number(send.id);
      // Counted and given back by an earlier cancel, being settled: nothing more to give.
      if (await self.settlementOf(id)) return { cancelled: 0, refunded: 0 };
      await self.db.updateTable('sends').set({ control: 'cancelled', updated_at: now }).where('id', '=', id).execute();
      const ahead: CreditAhead = { main: 0, international: 0 };
      let aheadCount = 0;
      if (send.pending_recipients !== null) {
        const due = dueOf(send);
        const rest = writeOut(due, send.expanded_count);
        if (rest.length <= cancelledAtOnce) {
          // A short list not yet written out is written out now, as the expander would (its
          // charged recipients queued, the uncharged failed), so every recipient is a message
          // that the report shows and the refund names.
          await new SqlCancelWork(self.context).writeChunk(due, send.expanded_count, rest, true, now);
        } else {
          // A long one is counted now and written out, cancelled, by the settling.
          for (const m of rest) {
            if (m.failedDetail !== undefined) continue;
            ahead[bucketOf(m.recipient)] += m.smsCount;
            aheadCount += 1;
          }
        }
      }
      // The written messages still waiting, locked (PostgreSQL): a claim running now either
      // took them before (they are submitting, not counted) or skips them; one after the
      // commit finds the send cancelled and gives them back (dispatch-queue.ts).
      const waiting = await self.db
        .selectFrom('messages')
        .select(['id', 'recipient', 'sms_count'])
        .where('send_id', '=', id)
        .where('state', 'in', [...moves.cancel.from])
        .orderBy('id')
        .$call((qb) => self.sql.forUpdate(qb))
        .execute();
      for (const m of waiting.slice(cancelledAtOnce)) {
        ahead[bucketOf(m.recipient)] += Number(m.sms_count);
        aheadCount += 1;
      }
      const first = waiting.slice(0, cancelledAtOnce).map((m) => Number(m.id));
      const work = new SqlCancelWork(self.context);
      const rows = first.length === 0 ? [] : await work.cancelMessages(sql`id in (${sql.join(first)})`, now);
      const outcome = await work.settleCancelled(rows, `send:${id}`, now);
      if (aheadCount === 0) return outcome;
      for (const bucket of ['main', 'international'] as const)
        await credit(self.context, send.account_id, bucket, ahead[bucket], cancelReason, `send:${id}`, now);
      await self.db
        .insertInto('cancel_settlements')
        .values({
          send_id: id,
          account_id: send.account_id,
          prepaid_main: ahead.main,
          prepaid_international: ahead.international,
          created_at: now,
        })
        .execute();
      return {
        cancelled: outcome.cancelled + aheadCount,
        refunded: outcome.refunded + ahead.main + ahead.international,
      };
    });
  }

  private settlementOf(sendId: number) {
    return this.db.selectFrom('cancel_settlements').select('send_id').where('send_id', '=', sendId).executeTakeFirst();
  }

  async cancelMessage(accountId: number, messageId: number, now: number): Promise<CancelOutcome | null> {
    return this.transact(async (self) => {
      const found = await self.db
        .selectFrom('messages as m')
        .innerJoin('sends as s', 's.id', 'm.send_id')
        .select(['m.send_id'])
        .where('m.id', '=', messageId)
        .where('m.account_id', '=', accountId)
        .where('s.kind', '=', 'sms')
        .executeTakeFirst();
      if (!found) return null;
      const work = new SqlCancelWork(self.context);
      const rows = await work.cancelMessages(sql`id = ${messageId}`, now);
      return work.settleCancelled(rows, `send:${Number(found.send_id)}`, now);
    });
  }

  async pause(target: SendTarget, now: number): Promise<ControlOutcome | null> {
    return this.controlled(target, async (self, send, id) => {
      await self.db.updateTable('sends').set({ control: 'paused', updated_at: now }).where('id', '=', id).execute();
      await self.moveMessages(id, moves.pause);
      return { state: 'paused', waiting: await self.waiting(send) };
    });
  }

  async resume(target: SendTarget, now: number): Promise<ControlOutcome | null> {
    return this.controlled(target, async (self, send, id) => {
      // The expander's lease of a chunk refused during the pause is let go with it.
      await self.db
        .updateTable('sends')
        .set({ control: null, expand_lease_until: null, updated_at: now })
        .where('id', '=', id)
        .execute();
      await self.moveMessages(id, moves.resume);
      if (send.speed !== null) await self.repace(id, send, now);
      return { state: 'running', waiting: await self.waiting(send) };
    });
  }

  /** Pause or resume, in one transaction on the send locked; a cancelled send answers so, unchanged. */
  private controlled(
    target: SendTarget,
    work: (self: this, send: SendRow, id: number) => Promise<ControlOutcome>,
  ): Promise<ControlOutcome | null> {
    return this.transact(async (self) => {
      const send = await self.lockedSend(target);
      if (!send) return null;
      if (send.control === 'cancelled') return { state: 'cancelled', waiting: 0 };
      return work(self, send, Number(send.id));
    });
  }

  /** A send's waiting messages take a control's move (pause: queued to paused; resume: back). */
  private async moveMessages(sendId: number, move: typeof moves.pause | typeof moves.resume): Promise<void> {
    await this.db
      .updateTable('messages')
      .set({ state: move.to[0] })
      .where('send_id', '=', sendId)
      .where('state', '=', move.from[0])
      .execute();
  }

  async previewCancel(target: SendTarget, writeOut: WriteOut): Promise<CancelPreview | null> {
    const send = await this.db
      .selectFrom('sends')
      .select(sendColumns)
      .where('id', '=', target.sendId)
      .where('account_id', '=', target.accountId)
      .where('kind', 'in', [...target.kinds])
      .executeTakeFirst();
    if (!send) return null;
    if (send.control === 'cancelled') return { waiting: 0, credit: 0, control: send.control };
    const row = await this.db
      .selectFrom('messages')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('sms_count').as('credit')])
      .where('send_id', '=', Number(send.id))
      .where('state', 'in', [...moves.cancel.from])
      .executeTakeFirst();
    let waiting = Number(row?.n ?? 0);
    let credit = Number(row?.credit ?? 0);
    if (send.pending_recipients !== null)
      for (const m of writeOut(dueOf(send), send.expanded_count)) {
        if (m.failedDetail !== undefined) continue;
        waiting += 1;
        credit += m.smsCount;
      }
    return { waiting, credit, control: send.control };
  }

  /**
   * A paced send resumed: its queued messages take up the pace from now (their due times
   * passed during the pause, and would all go at once), and its list not yet written out
   * follows them.
   */
  private async repace(
    id: number,
    send: { send_window: string | null; speed: number | null; valid_until: number | string | null },
    now: number,
  ): Promise<void> {
    const rows = await this.db
      .selectFrom('messages')
      .select('id')
      .where('send_id', '=', id)
      .where('state', '=', moves.resume.to[0])
      .orderBy('id')
      .execute();
    const validUntil = send.valid_until === null ? null : Number(send.valid_until);
    const due = dueTimes({ window: decodeWindow(send.send_window), speed: send.speed }, now, rows.length, {
      from: null,
      validUntil,
    });
    for (let start = 0; start < rows.length; start += 500) {
      const slice = rows.slice(start, start + 500);
      const cases = slice.map((r, i) => sql`when ${Number(r.id)} then cast(${due.dueAts[start + i] ?? now} as bigint)`);
      await sql`update messages set due_at = case id ${sql.join(cases, sql` `)} end
        where id in (${sql.join(slice.map((r) => Number(r.id)))})`.execute(this.db);
    }
    await this.db.updateTable('sends').set({ pace_next_at: due.next }).where('id', '=', id).execute();
  }

  /** Messages of the send not yet submitted, with the recipients not yet written out. */
  private async waiting(send: {
    id: number;
    total_numbers: number;
    expanded_count: number;
    pending_recipients: string | null;
  }): Promise<number> {
    const row = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('send_id', '=', Number(send.id))
      .where('state', 'in', ['queued', 'paused'])
      .executeTakeFirst();
    const unwritten = send.pending_recipients === null ? 0 : send.total_numbers - send.expanded_count;
    return Number(row?.n ?? 0) + unwritten;
  }
}
