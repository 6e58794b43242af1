/**
 * The dispatch queue: claims with leases, submit outcomes, and (through SqlReceipts) the
 * receipts that settle what was sent. Each write moves messages along one edge of the
 * delivery state machine, guarded in SQL by the edge's `from` states (domain/delivery-state).
 */
import type {
  ClaimedMessage,
  DispatchQueue,
  DueExpansion,
  LaneShare,
  SentItem,
  Transition,
  WriteOut,
} from '../../../ports/dispatch-queue.js';
import { sql } from 'kysely';
import { SqlExpansion } from './expansion.js';
import { SqlCancelWork } from './cancel-work.js';
import type { CarrierReceipt, SmsLang } from '../../../ports/carrier.js';
import { moves } from '../../../domain/delivery-state.js';
import { StorePart } from '../store-part.js';
import { SqlReceipts, recordEvents } from './receipts.js';
import { RollupDeltas } from './rollups.js';
import { UndeliveredRefunds, refundTarget } from './refund-policy.js';
import { claimDue, claimedMessages, markSent, partsInsert, preparedChunk } from './statements.js';
import type { SentPart } from './statements.js';
import { unsealOtpText } from '../../../domain/otp-check.js';
import { laneOf } from '../../../domain/lanes.js';
import { claimShared } from './lane-claim.js';
import { holdAtClaim, someHeld } from './claim-holds.js';

/**
 * Where a message given back by the dispatcher goes: queued, or held (paused) when its send
 * was paused or cancelled meanwhile, so that no claim sends it (docs/decisions.md,
 * "Campaign controls"); a cancel takes held messages too.
 */
const requeuedState = sql<
  'queued' | 'paused'
>`case when exists (select 1 from sends s where s.id = messages.send_id and s.control is not null) then ${moves.pause.to[0]} else ${moves.retry.to[0]} end`;

export class SqlDispatchQueue extends StorePart implements DispatchQueue {
  /** The OTP secret (migration 0026), read when a claim first holds a sealed OTP text. */
  private async otpSecret(): Promise<string> {
    const row = await this.db.selectFrom('otp_secret').select('secret').where('id', '=', 1).executeTakeFirst();
    if (!row) throw new Error('the OTP secret is missing from the store (migration 0026)');
    return row.secret;
  }

  private receipts(): SqlReceipts {
    return new SqlReceipts(this.context);
  }

  claimExpansion(now: number, leaseUntil: number): Promise<DueExpansion | null> {
    return new SqlExpansion(this.context).claimExpansion(now, leaseUntil);
  }

  settleCancels(now: number, writeOut: WriteOut, limit: number): Promise<number> {
    return new SqlCancelWork(this.context).settleCancels(now, writeOut, limit);
  }

  expandChunk(...chunk: Parameters<DispatchQueue['expandChunk']>): Promise<boolean> {
    return new SqlExpansion(this.context).expandChunk(...chunk);
  }

  async claimDue(now: number, limit: number, leaseUntil: number, share?: LaneShare): Promise<ClaimedMessage[]> {
    return this.transact(async (self) => {
      const shared = share ? await claimShared(self.db, self.sql, { now, limit, leaseUntil }, share) : null;
      const ids =
        shared ??
        (await self.db.executeQuery(claimDue(self.sql)(self.db, { now, limit, leaseUntil }))).rows.map((c) =>
          Number(c.id),
        );
      if (ids.length === 0) return [];
      const claimed = (await self.db.executeQuery(claimedMessages(self.db, {}, ids))).rows;
      // A send cancelled with more waiting than its cancel settled at once keeps those
      // messages queued until they are settled (cancel-work.ts): a claim that takes them
      // gives them back, held, in its own transaction, and sends none of them.
      const running = claimed.some((r) => r.control !== null) ? await self.holdBack(claimed, now) : claimed;
      // Sends with a window or a validity: a message outside the one or past the other is not submitted.
      const held = someHeld(running) ? await holdAtClaim(self.context, running, now) : null;
      const rows = held === null ? running : running.filter((r) => !held.has(Number(r.id)));
      const secret = rows.some((r) => r.sealed_text !== null) ? await self.otpSecret() : '';
      return rows.map((r) => ({
        id: Number(r.id),
        sendId: Number(r.send_id),
        keyId: r.key_id,
        recipient: r.recipient,
        text: r.sealed_text !== null ? unsealOtpText(secret, r.sealed_text) : (r.text ?? r.send_text ?? ''),
        sender: r.sender,
        lang: r.lang as SmsLang,
        sandbox: r.sandbox === 1,
        attempts: r.attempts,
        accountId: r.account_id,
        lane: laneOf(r.priority),
        ...(r.valid_until !== null ? { validUntil: Number(r.valid_until) } : {}),
      }));
    });
  }

  /** The claimed rows of running sends; those of paused or cancelled ones given back (`giveBackHeld`). */
  private async holdBack<R extends { id: number | string; control: string | null }>(
    claimed: readonly R[],
    now: number,
  ): Promise<R[]> {
    await this.giveBackHeld(
      claimed.filter((r) => r.control !== null).map((r) => Number(r.id)),
      now,
    );
    return claimed.filter((r) => r.control === null);
  }

  /**
   * Claimed messages given back unattempted, in the caller's transaction: held when their
   * send is paused or cancelled (queued otherwise), and those of a cancelled send settled
   * (cancel-work.ts, `settleHeld`).
   */
  private async giveBackHeld(ids: readonly number[], now: number): Promise<Transition[]> {
    const given: number[] = [];
    for (let from = 0; from < ids.length; from += 1000) {
      const rows = await this.db
        .updateTable('messages')
        .set({ state: requeuedState, lease_until: null, attempts: sql`attempts - 1` })
        .where('id', 'in', ids.slice(from, from + 1000))
        .where('state', '=', moves.retry.from[0])
        .returning('id')
        .execute();
      for (const r of rows) given.push(Number(r.id));
    }
    return given.length === 0 ? [] : new SqlCancelWork(this.context).settleHeld(given, now);
  }

  async controlledSends(sendIds: readonly number[]): Promise<number[]> {
    if (sendIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('sends')
      .select('id')
      .where('id', 'in', [...sendIds])
      .where('control', 'is not', null)
      .execute();
    return rows.map((r) => Number(r.id));
  }

  giveBack(messageIds: readonly number[], now: number): Promise<Transition[]> {
    return this.transact(async (self) => {
      // Their sends locked first (PostgreSQL), as a cancel locks its send before its messages
      // (not in a claim's hold-back, which holds its messages' locks already):
      // a cancel committing meanwhile is then wholly before this or wholly after it, so the
      // settling below reads the control and the settlement it left.
      for (let from = 0; from < messageIds.length; from += 1000)
        await self.db
          .selectFrom('sends')
          .select('id')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('messages')
              .select('send_id')
              .where('id', 'in', messageIds.slice(from, from + 1000)),
          )
          .orderBy('id')
          .$call((qb) => self.sql.forUpdate(qb))
          .execute();
      return self.giveBackHeld(messageIds, now);
    });
  }

  async extendLeases(ids: readonly number[], now: number, until: number): Promise<number> {
    let extended = 0;
    // In slices: a statement's parameters are bounded (SQLite: 32,766).
    for (let from = 0; from < ids.length; from += 1000) {
      const result = await this.db
        .updateTable('messages')
        .set({ lease_until: until })
        .where('id', 'in', ids.slice(from, from + 1000))
        .where('state', '=', 'submitting')
        .where('lease_until', '>', now)
        .executeTakeFirst();
      extended += Number(result.numUpdatedRows);
    }
    return extended;
  }

  async requeueExpiredLeases(now: number): Promise<{ requeued: number; cancelled: Transition[] }> {
    return this.transact(async (self) => {
      const rows = await self.db
        .updateTable('messages')
        .set({ state: requeuedState, lease_until: null })
        .where('state', '=', moves.retry.from[0])
        .where('lease_until', '<=', now)
        .returning(['id', 'state'])
        .execute();
      // Those of a send cancelled meanwhile are settled, not left held (cancel-work.ts).
      const held = rows.filter((r) => r.state === moves.pause.to[0]).map((r) => Number(r.id));
      const cancelled = held.length > 0 ? await new SqlCancelWork(self.context).settleHeld(held, now) : [];
      return { requeued: rows.length, cancelled };
    });
  }

  async markSentMany(items: readonly SentItem[], now: number): Promise<Transition[][]> {
    if (items.length === 0) return [];
    return this.transact(async (self) => {
      const sentKeys = new Map<number, number>();
      for (const carrier of new Set(items.map((i) => i.carrier))) {
        const ids = items.filter((i) => i.carrier === carrier).map((i) => i.messageId);
        const rows = (await self.db.executeQuery(markSent(self.db, { carrier, now }, ids))).rows;
        for (const r of rows) sentKeys.set(Number(r.id), r.key_id);
      }
      const parts = items.flatMap((i) =>
        i.carrierMessageIds.map((id, n): SentPart => ({
          carrier_message_id: id,
          message_id: i.messageId,
          part_no: n + 1,
        })),
      );
      for (let start = 0; start < parts.length; start += preparedChunk) {
        await self.db.executeQuery(partsInsert(self.db, parts.slice(start, start + preparedChunk)));
      }
      const result = items.map((i): Transition[] => {
        const keyId = sentKeys.get(i.messageId);
        return keyId === undefined ? [] : [{ messageId: i.messageId, keyId, state: 'sent' }];
      });
      await recordEvents(self.db, result.flat(), now);
      // Receipts may have come before these submit responses: apply them now.
      const receipts = self.receipts();
      const early = parts.length === 0 ? [] : await receipts.takeEarly(parts.map((p) => p.carrier_message_id));
      if (early.length > 0) {
        const applied = await receipts.applyReceipts(early, now);
        const byMessage = new Map(items.map((i, n) => [i.messageId, n]));
        for (const t of applied) {
          if (!t || t === 'unmatched') continue;
          const n = byMessage.get(t.messageId);
          if (n !== undefined) result[n]?.push(t);
        }
      }
      return result;
    });
  }

  async markRetry(messageId: number, dueAt: number, detail: string): Promise<void> {
    await this.db
      .updateTable('messages')
      .set({ state: requeuedState, due_at: dueAt, lease_until: null, detail })
      .where('id', '=', messageId)
      .where('state', '=', moves.retry.from[0])
      .execute();
  }

  async markFailed(messageId: number, detail: string, now: number): Promise<Transition | null> {
    return this.transact(async (self) => {
      const row = await self.db
        .updateTable('messages')
        .set({ state: moves.reject.to[0], done_at: now, lease_until: null, detail })
        .where('id', '=', messageId)
        .where('state', 'in', moves.reject.from)
        .returning(['key_id', 'state', 'account_id', 'send_id', 'created_at', 'recipient', 'sms_count'])
        .returning(refundTarget.as('refund_to'))
        .executeTakeFirst();
      const t: Transition | null = row ? { messageId, keyId: row.key_id, state: 'failed' } : null;
      if (row) {
        // Its credit back in this transaction, where a policy gives it (refund-policy.ts).
        const refunds = new UndeliveredRefunds();
        refunds.add({ ...row, id: messageId }, 'rejected');
        await refunds.give(self.context, now);
        // From queued or submitting (moves.reject), neither of which the rollups count.
        const deltas = new RollupDeltas();
        deltas.moved(row, moves.reject.from[0], row.state);
        await deltas.queue(self.db);
      }
      if (t) await recordEvents(self.db, [t], now);
      return t;
    });
  }

  applyReceipts(reports: readonly CarrierReceipt[], now: number): Promise<(Transition | 'unmatched' | null)[]> {
    return this.receipts().applyReceipts(reports, now);
  }

  retryUnmatchedReceipts(now: number): Promise<Transition[]> {
    return this.receipts().retryUnmatchedReceipts(now);
  }

  awaitingReceipts(
    carrier: string,
    submittedBefore: number,
    limit: number,
  ): Promise<{ carrierMessageId: string; recipient: string }[]> {
    return this.receipts().awaitingReceipts(carrier, submittedBefore, limit);
  }
}
