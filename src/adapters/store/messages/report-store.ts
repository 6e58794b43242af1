/** The customer's reads of sends and messages: /sms/status, /reports, the per-minute limit. */
import { sql } from 'kysely';
import type { CommercialTally } from '../../../domain/iys.js';
import type {
  MessageRecord,
  PeriodStateCount,
  ReportRow,
  ReportStore,
  SendRecord,
  StateCount,
} from '../../../ports/reports.js';
import { StorePart } from '../store-part.js';
import { accountRow } from '../account-rows.js';
import type { Executor } from '../executor.js';

/** One message of the account, with its send, for the caller to select from: /sms/status's read, and the panel's. */
export function accountMessage(db: Executor, accountId: number, messageId: number) {
  return db
    .selectFrom('messages as m')
    .innerJoin('sends as s', 's.id', 'm.send_id')
    .where('m.id', '=', messageId)
    .where('m.account_id', '=', accountId);
}

export class SqlReportStore extends StorePart implements ReportStore {
  async periodStates(accountId: number, from: number, to: number): Promise<PeriodStateCount[]> {
    // A range of the message log's index (account_id, created_at, id).
    const rows = await this.db
      .selectFrom('messages')
      .select([
        'state',
        (eb) => eb.fn.countAll<number | string>().as('messages'),
        (eb) => eb.fn.sum<number | string | null>('sms_count').as('sms'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .groupBy('state')
      .execute();
    return rows.map((r) => ({ state: r.state, messages: Number(r.messages), sms: Number(r.sms ?? 0) }));
  }

  async recipientsSince(accountId: number, since: number): Promise<number> {
    // Counted from the sends, not the messages: a scheduled send's recipients are recorded
    // (and count) at request time, before its messages are written out.
    const row = await this.db
      .selectFrom('sends')
      .select((eb) => eb.fn.sum<number>('total_numbers').as('n'))
      .where('account_id', '=', accountId)
      .where('kind', '=', 'sms')
      .where('created_at', '>', since)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async findMessage(id: number, accountId: number): Promise<MessageRecord | null> {
    const r = await accountMessage(this.db, accountId, id)
      .select([
        'm.id',
        'm.send_id',
        'm.account_id',
        'm.key_id',
        'm.recipient',
        'm.sms_count',
        'm.operator',
        'm.state',
        'm.detail',
        'm.created_at',
        'm.submitted_at',
        'm.done_at',
        's.sender',
        's.kind',
        's.scheduled_at',
      ])
      .executeTakeFirst();
    if (!r) return null;
    return {
      id: Number(r.id),
      sendId: Number(r.send_id),
      accountId: r.account_id,
      keyId: r.key_id,
      recipient: r.recipient,
      smsCount: r.sms_count,
      operator: r.operator,
      state: r.state,
      detail: r.detail,
      createdAt: Number(r.created_at),
      submittedAt: r.submitted_at === null ? null : Number(r.submitted_at),
      doneAt: r.done_at === null ? null : Number(r.done_at),
      sender: r.sender,
      sendKind: r.kind,
      scheduled: r.scheduled_at !== null,
    };
  }

  async findSend(id: number, accountId: number): Promise<SendRecord | null> {
    const r = await accountRow(this.db, 'sends', accountId, id);
    if (!r) return null;
    return {
      id: Number(r.id),
      accountId: r.account_id,
      expandedCount: r.expanded_count,
      pending: r.pending_recipients !== null,
      kind: r.kind,
      sender: r.sender,
      scheduledAt: r.scheduled_at === null ? null : Number(r.scheduled_at),
      totalNumbers: r.total_numbers,
      invalidNumbers: r.invalid_numbers,
      blockedNumbers: r.blocked_numbers,
      iysSkipped: r.iys === null ? null : tallySkipped(r.iys),
      smsCost: r.sms_cost,
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
      ...(r.control === null ? {} : { control: r.control }),
    };
  }

  async sendCounters(sendId: number): Promise<StateCount[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => [
        'state',
        eb.fn.countAll<number>().as('n'),
        eb.fn.max('done_at').as('last_done'),
        eb.fn.max('submitted_at').as('last_submit'),
      ])
      .where('send_id', '=', sendId)
      .groupBy('state')
      .execute();
    return rows.map((r) => {
      const times = [r.last_done, r.last_submit].filter((t): t is number => t !== null).map(Number);
      return { state: r.state, count: Number(r.n), lastChange: times.length > 0 ? Math.max(...times) : null };
    });
  }

  async sendMessages(sendId: number, offset: number, limit: number): Promise<ReportRow[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'recipient', 'operator', 'state', 'created_at', 'submitted_at', 'done_at', 'detail'])
      // Only a message that ended without delivery may have been refunded: one read by key then.
      .select(
        sql<
          number | string | null
        >`case when messages.state in ('failed', 'expired', 'cancelled') then (select r.amount from refunds r where r.refund_key = 'message:' || messages.id and r.account_id = messages.account_id) end`.as(
          'refunded',
        ),
      )
      .where('send_id', '=', sendId)
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      recipient: r.recipient,
      operator: r.operator,
      state: r.state,
      createdAt: Number(r.created_at),
      submittedAt: r.submitted_at === null ? null : Number(r.submitted_at),
      doneAt: r.done_at === null ? null : Number(r.done_at),
      detail: r.detail,
      refunded: Number(r.refunded ?? 0),
    }));
  }
}

function tallySkipped(json: string): number {
  const t = JSON.parse(json) as CommercialTally;
  return t.none + t.ret;
}
