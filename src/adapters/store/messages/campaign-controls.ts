/**
 * Cancel, pause and resume of a send (src/ports/campaign-controls.ts). Each locks the send's
 * row first (PostgreSQL; SQLite has one writer), so the expander's next chunk, guarded by
 * the send's `expanded_count` and `control`, cannot slip in between. Messages move only
 * along the edges of domain/delivery-state, guarded in SQL by their `from` states: a claim
 * (queued ──▶ submitting) and a cancel (queued ──▶ cancelled) of the same row are one after
 * the other on either store, and the second finds the row no longer in its `from` state.
 */
import { sql } from 'kysely';
import type { SmsLang } from '../../../ports/carrier.js';
import type { DueExpansion, Transition } from '../../../ports/dispatch-queue.js';
import type {
  CampaignControls,
  CancelOutcome,
  ControlOutcome,
  SendTarget,
  WriteOut,
} from '../../../ports/campaign-controls.js';
import type { CommercialTally } from '../../../domain/iys.js';
import { moves } from '../../../domain/delivery-state.js';
import { cancelRefundReason } from '../../../domain/refunds.js';
import { isTurkeyNumber } from '../../../domain/recipients.js';
import { StorePart } from '../store-part.js';
import { SqlAccountStore } from '../accounts-store.js';
import { SqlMessageStore } from './message-store.js';
import { recordEvents } from './receipts.js';

const cancelledDetail = 'Cancelled by the customer before sending';

type CancelledRow = { id: number | string; key_id: number; account_id: number; recipient: string; sms_count: number };

export class SqlCampaignControls extends StorePart implements CampaignControls {
  /** The send's row, locked until the transaction ends (PostgreSQL). */
  private async lockedSend(target: SendTarget) {
    return this.db
      .selectFrom('sends')
      .select([
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
      ])
      .where('id', '=', target.sendId)
      .where('account_id', '=', target.accountId)
      .where('kind', 'in', [...target.kinds])
      .$call((qb) => this.sql.forUpdate(qb))
      .executeTakeFirst();
  }

  async cancelSend(target: SendTarget, now: number, writeOut: WriteOut): Promise<CancelOutcome | null> {
    return this.transact(async (self) => {
      const send = await self.lockedSend(target);
      if (!send) return null;
      const id = Number(send.id);
      if (send.pending_recipients !== null) {
        // The list not yet written out is written out now, as the expander would (its
        // charged recipients queued, the uncharged failed), so every recipient is a message
        // that the report shows and the refund names.
        const due: DueExpansion = {
          id,
          accountId: send.account_id,
          keyId: send.key_id,
          kind: send.kind,
          text: send.text,
          lang: send.lang as SmsLang,
          sandbox: send.sandbox === 1,
          priority: send.priority,
          expandedCount: send.expanded_count,
          pendingRecipients: send.pending_recipients,
          iys: send.iys === null ? null : (JSON.parse(send.iys) as CommercialTally),
        };
        const messages = writeOut(due, send.expanded_count);
        const writes = new SqlMessageStore(self.context);
        const ids = await writes.allocateIds(messages.length);
        await writes.insertMessagesOf([
          {
            send: {
              id,
              accountId: send.account_id,
              keyId: send.key_id,
              sandbox: send.sandbox === 1,
              createdAt: now,
              dueAt: now,
              priority: send.priority,
            },
            ids,
            messages,
          },
        ]);
        await self.db
          .updateTable('sends')
          .set({
            expanded_count: send.expanded_count + messages.length,
            pending_recipients: null,
            expand_lease_until: null,
          })
          .where('id', '=', id)
          .execute();
      }
      await self.db.updateTable('sends').set({ control: 'cancelled', updated_at: now }).where('id', '=', id).execute();
      const { rows } = await sql<CancelledRow>`
        update messages set state = ${moves.cancel.to[0]}, done_at = ${now}, lease_until = null,
          detail = ${cancelledDetail}
        where send_id = ${id} and state in (${sql.join(moves.cancel.from)})
        returning id, key_id, account_id, recipient, sms_count`.execute(self.db);
      return self.settleCancelled(rows, `send:${id}`, now);
    });
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
      const { rows } = await sql<CancelledRow>`
        update messages set state = ${moves.cancel.to[0]}, done_at = ${now}, lease_until = null,
          detail = ${cancelledDetail}
        where id = ${messageId} and state in (${sql.join(moves.cancel.from)})
        returning id, key_id, account_id, recipient, sms_count`.execute(self.db);
      return self.settleCancelled(rows, `send:${Number(found.send_id)}`, now);
    });
  }

  /** The refunds and events of messages just cancelled, in the cancel's transaction. */
  private async settleCancelled(rows: readonly CancelledRow[], reference: string, now: number): Promise<CancelOutcome> {
    const refunded = await new SqlAccountStore(this.context).refund(
      rows.map((r) => ({
        key: `message:${Number(r.id)}`,
        accountId: r.account_id,
        bucket: isTurkeyNumber(r.recipient) ? 'main' : 'international',
        amount: Number(r.sms_count),
      })),
      cancelRefundReason,
      reference,
      now,
    );
    const transitions: Transition[] = rows.map((r) => ({
      messageId: Number(r.id),
      keyId: r.key_id,
      state: 'cancelled',
    }));
    await recordEvents(this.db, transitions, now);
    return { cancelled: rows.length, refunded };
  }

  async pause(target: SendTarget, now: number): Promise<ControlOutcome | null> {
    return this.transact(async (self) => {
      const send = await self.lockedSend(target);
      if (!send) return null;
      if (send.control === 'cancelled') return { state: 'cancelled', waiting: 0 };
      const id = Number(send.id);
      await self.db.updateTable('sends').set({ control: 'paused', updated_at: now }).where('id', '=', id).execute();
      await self.db
        .updateTable('messages')
        .set({ state: moves.pause.to[0] })
        .where('send_id', '=', id)
        .where('state', '=', moves.pause.from[0])
        .execute();
      return { state: 'paused', waiting: await self.waiting(send) };
    });
  }

  async resume(target: SendTarget, now: number): Promise<ControlOutcome | null> {
    return this.transact(async (self) => {
      const send = await self.lockedSend(target);
      if (!send) return null;
      if (send.control === 'cancelled') return { state: 'cancelled', waiting: 0 };
      const id = Number(send.id);
      // The expander's lease of a chunk refused during the pause is let go with it.
      await self.db
        .updateTable('sends')
        .set({ control: null, expand_lease_until: null, updated_at: now })
        .where('id', '=', id)
        .execute();
      await self.db
        .updateTable('messages')
        .set({ state: moves.resume.to[0] })
        .where('send_id', '=', id)
        .where('state', '=', moves.resume.from[0])
        .execute();
      return { state: 'running', waiting: await self.waiting(send) };
    });
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
