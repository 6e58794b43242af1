/**
 * The carrier's delivery receipts: each settles a part of a sent message, and the last part
 * settles the message (domain/delivery-state's combineParts). A receipt may come before its
 * submit's answer: it is kept (unmatched_reports) until its part is known.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Insertable, Selectable } from 'kysely';
import type { UnmatchedReceiptsTable } from '../schema.js';
import type { Transition } from '../../../ports/dispatch-queue.js';
import type { CarrierReceipt } from '../../../ports/carrier.js';
import { canMove, combineParts, isFinal } from '../../../domain/delivery-state.js';
import type { FinalState, PartState } from '../../../domain/delivery-state.js';
import { recordTransitionEvents, rowChunk } from '../event-outbox.js';
import type { Executor } from '../executor.js';
import { StorePart } from '../store-part.js';
import { groupByOutcome, outcomeOf, toReceipt } from './rows.js';
import { RollupDeltas } from './rollups.js';
import { UndeliveredRefunds } from './refund-policy.js';
import { earlyReceipts, messagesToSettle, partStates, partsNamed, settleMessages, settleParts } from './statements.js';

/** Writes the webhook events of these transitions (in the caller's transaction) and marks the ones that got one. */
export async function recordEvents(db: Executor, transitions: readonly Transition[], now: number): Promise<void> {
  for (const t of await recordTransitionEvents(db, transitions, now)) t.webhookEvent = true;
}

export class SqlReceipts extends StorePart {
  /**
   * Applies reports in one transaction; each gets its own answer, in order. A batch is
   * applied a chunk at a time (as if one report after another: the first receipt of a part
   * counts), each chunk in a few set-based statements; between chunks other work may run.
   */
  async applyReceipts(receipts: readonly CarrierReceipt[], now: number): Promise<(Transition | 'unmatched' | null)[]> {
    if (receipts.length === 0) return [];
    return this.transact(async (self) => {
      const answers: (Transition | 'unmatched' | null)[] = [];
      // The panel's rollups: the messages settled by the whole batch, added once at its end.
      const deltas = new RollupDeltas();
      // Credit of messages that ended failed or expired, where a policy gives it back: in
      // this transaction, so a receipt and its refund commit together or not at all.
      const refunds = new UndeliveredRefunds();
      for (let start = 0; start < receipts.length; start += rowChunk) {
        if (start > 0) await yieldToEventLoop();
        answers.push(...(await self.applyChunk(receipts.slice(start, start + rowChunk), now, { deltas, refunds })));
      }
      await refunds.give(self.context, now);
      await deltas.queue(self.db);
      return answers;
    });
  }

  /** Reports kept for these parts before their submit's answer came, taken out of the kept ones (inside the caller's transaction). */
  async takeEarly(ids: readonly string[]): Promise<CarrierReceipt[]> {
    const found: Selectable<UnmatchedReceiptsTable>[] = [];
    for (let start = 0; start < ids.length; start += rowChunk) {
      found.push(...(await this.db.executeQuery(earlyReceipts(this.db, {}, ids.slice(start, start + rowChunk)))).rows);
    }
    if (found.length > 0) {
      await this.db
        .deleteFrom('unmatched_reports')
        .where(
          'carrier_message_id',
          'in',
          found.map((r) => r.carrier_message_id),
        )
        .execute();
    }
    return found.map(toReceipt);
  }

  async retryUnmatchedReceipts(now: number): Promise<Transition[]> {
    const known = await this.db
      .selectFrom('unmatched_reports as u')
      .innerJoin('message_parts as p', 'p.carrier_message_id', 'u.carrier_message_id')
      .select('u.carrier_message_id')
      .limit(1000)
      .execute();
    const transitions: Transition[] = [];
    for (let start = 0; start < known.length; start += rowChunk) {
      if (start > 0) await yieldToEventLoop();
      const ids = known.slice(start, start + rowChunk).map((r) => r.carrier_message_id);
      await this.transact(async (self) => {
        // Only what this transaction took out is applied: another worker may have got there first.
        const taken = await self.db
          .deleteFrom('unmatched_reports')
          .where('carrier_message_id', 'in', ids)
          .returningAll()
          .execute();
        if (taken.length === 0) return;
        for (const t of await self.applyReceipts(taken.map(toReceipt), now))
          if (t && t !== 'unmatched') transitions.push(t);
      });
    }
    return transitions;
  }

  async awaitingReceipts(
    carrier: string,
    submittedBefore: number,
    limit: number,
  ): Promise<{ carrierMessageId: string; recipient: string }[]> {
    const rows = await this.db
      .selectFrom('message_parts as p')
      .innerJoin('messages as m', 'm.id', 'p.message_id')
      .select(['p.carrier_message_id', 'm.recipient'])
      .where('m.carrier', '=', carrier)
      .where('p.state', '=', 'sent')
      .where('m.submitted_at', '<', submittedBefore)
      .limit(limit)
      .execute();
    return rows.map((r) => ({ carrierMessageId: r.carrier_message_id, recipient: r.recipient }));
  }

  /** Up to `rowChunk` receipts, inside the caller's transaction. */
  private async applyChunk(
    receipts: readonly CarrierReceipt[],
    now: number,
    { deltas, refunds }: { deltas: RollupDeltas; refunds: UndeliveredRefunds },
  ): Promise<(Transition | 'unmatched' | null)[]> {
    const ids = [...new Set(receipts.map((r) => r.carrierMessageId))];
    const parts = (await this.db.executeQuery(partsNamed(this.db, {}, ids))).rows;
    const messageOf = new Map(parts.map((p) => [p.carrier_message_id, Number(p.message_id)]));
    await this.keepUnmatched(
      receipts.filter((r) => !messageOf.has(r.carrierMessageId)),
      now,
    );
    const messageIds = [...new Set(messageOf.values())].sort((a, b) => a - b);
    if (messageIds.length === 0) return receipts.map(() => 'unmatched' as const);
    // Parts of one message are settled one transaction at a time (row locks in id order on
    // PostgreSQL; SQLite has one writer), so the last part sees all the others.
    const messages = (await this.db.executeQuery(messagesToSettle(this.sql)(this.db, {}, messageIds))).rows;
    const messageRows = new Map(messages.map((m) => [Number(m.id), m]));
    // A part takes the first receipt that names it while it is still 'sent'.
    const firstOf = new Map<string, number>();
    receipts.forEach((r, i) => {
      if (messageOf.has(r.carrierMessageId) && !firstOf.has(r.carrierMessageId)) firstOf.set(r.carrierMessageId, i);
    });
    const changed = new Set<string>();
    for (const group of groupByOutcome([...firstOf.values()], (i) => outcomeOf(receipts[i] as CarrierReceipt, now))) {
      const ids = group.items.map((i) => (receipts[i] as CarrierReceipt).carrierMessageId);
      const rows = (await this.db.executeQuery(settleParts(this.db, group.outcome, ids))).rows;
      for (const r of rows) changed.add(r.carrier_message_id);
    }
    // Each message changed by this chunk, with the index of the last report that changed it.
    const touched = new Map<number, number>();
    receipts.forEach((r, i) => {
      const messageId = messageOf.get(r.carrierMessageId);
      if (messageId === undefined || firstOf.get(r.carrierMessageId) !== i || !changed.has(r.carrierMessageId)) return;
      const row = messageRows.get(messageId);
      if (row && !isFinal(row.state)) touched.set(messageId, i);
    });
    const answers: (Transition | 'unmatched' | null)[] = receipts.map((r) =>
      messageOf.has(r.carrierMessageId) ? null : 'unmatched',
    );
    if (touched.size === 0) return answers;
    const states = (await this.db.executeQuery(partStates(this.db, {}, [...touched.keys()]))).rows;
    const partsOf = new Map<number, PartState[]>();
    for (const p of states) {
      const list = partsOf.get(Number(p.message_id));
      if (list) list.push(p.state as PartState);
      else partsOf.set(Number(p.message_id), [p.state as PartState]);
    }
    const settled: { messageId: number; index: number; keyId: number; final: FinalState }[] = [];
    for (const [messageId, index] of touched) {
      const final = combineParts(partsOf.get(messageId) ?? []);
      const row = messageRows.get(messageId);
      // A receipt settles a message at any step before final (domain/delivery-state moves.receipt).
      if (final && row && canMove(row.state, final)) settled.push({ messageId, index, keyId: row.key_id, final });
    }
    for (const group of groupByOutcome(settled, (m) => ({
      ...outcomeOf(receipts[m.index] as CarrierReceipt, now),
      state: m.final,
    }))) {
      await this.db.executeQuery(
        settleMessages(
          this.db,
          group.outcome,
          group.items.map((m) => m.messageId),
        ),
      );
    }
    for (const m of settled) {
      answers[m.index] = { messageId: m.messageId, keyId: m.keyId, state: m.final };
      const row = messageRows.get(m.messageId);
      // The state read (under a row lock on PostgreSQL) before settling: the message's old state.
      if (row) deltas.moved(row, row.state, m.final);
      if (row && m.final !== 'delivered') refunds.add(row, m.final);
    }
    await recordEvents(
      this.db,
      answers.filter((a): a is Transition => a !== null && a !== 'unmatched'),
      now,
    );
    return answers;
  }

  /** Keeps receipts whose part is not known (yet): a later receipt of the same id replaces state and detail. */
  private async keepUnmatched(receipts: readonly CarrierReceipt[], now: number): Promise<void> {
    if (receipts.length === 0) return;
    const rows = new Map<string, Insertable<UnmatchedReceiptsTable>>();
    for (const r of receipts) {
      const kept = rows.get(r.carrierMessageId);
      if (kept) rows.set(r.carrierMessageId, { ...kept, state: r.status, detail: r.detail ?? null });
      else
        rows.set(r.carrierMessageId, {
          carrier_message_id: r.carrierMessageId,
          state: r.status,
          detail: r.detail ?? null,
          done_at: r.doneAt ?? now,
          received_at: now,
        });
    }
    await this.db
      .insertInto('unmatched_reports')
      .values([...rows.values()])
      .onConflict((oc) =>
        oc
          .column('carrier_message_id')
          .doUpdateSet((eb) => ({ state: eb.ref('excluded.state'), detail: eb.ref('excluded.detail') })),
      )
      .execute();
  }
}
