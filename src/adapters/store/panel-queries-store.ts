/**
 * The customer panel's reads (pages, counts, exports) of one account, in one store part.
 * One file, long because each page's query is short and read alone, and they share the
 * account's scoping and row types; split by page they would repeat both.
 */
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import { StorePart } from './store-part.js';
import { accountMessage } from './messages/report-store.js';
import type { PartContext } from './store-part.js';
import type { Database, MessagesTable, SendsTable } from './schema.js';
import type {
  BlockedRow,
  CampaignRow,
  ContactRow,
  Counts,
  DayCounts,
  ExportRow,
  GroupRow,
  LogCursor,
  LogRow,
  MessageDetail,
  MessageFilter,
  PanelQueries,
} from '../../ports/panel-queries.js';
import { panelKeyHint } from '../../ports/panel-queries.js';
import type { SendKind } from '../../ports/messages.js';

/** The rollup tables of migration 0015 (migrations/0015-panel-counts.ts), kept by the writes of messages (messages/rollups.ts). */
type CountsColumns = {
  messages: number;
  sms: number;
  delivered: number;
  failed: number;
};
// Type aliases, not interfaces: withTables wants types with an implicit index signature.
type RollupTables = {
  daily_counts: CountsColumns & { account_id: number; day: number };
  send_counts: CountsColumns & { send_id: number };
  /** contacts with the name column of migration 0015. */
  contacts: { group_id: number; number: string; created_at: number; name: string | null };
  /** The number search of migration 0035, written by the deriver (derived-counts-store.ts). */
  message_numbers: { account_id: number; recipient: string; created_at: number; message_id: number };
};

/** Group ids are 32-bit serials: a larger id names no group (and PostgreSQL would refuse the comparison). */
const maxSerial = 2 ** 31 - 1;
const campaignKinds: SendKind[] = ['group', 'mixed'];
/** Messages to one number read from the number search at a time. */
const numbersPage = 500;
/** Subscriber keys per IN list: well inside both dialects' parameter limits. */
const keyChunk = 500;

const counts = (r: { messages: unknown; sms: unknown; delivered: unknown; failed: unknown }): Counts => ({
  messages: Number(r.messages ?? 0),
  sms: Number(r.sms ?? 0),
  delivered: Number(r.delivered ?? 0),
  failed: Number(r.failed ?? 0),
});
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A message's line of the log, and the head of its detail. */
function toLogRow(
  r: Pick<Selectable<MessagesTable>, 'id' | 'send_id' | 'recipient' | 'state' | 'sms_count' | 'created_at'> &
    Pick<Selectable<SendsTable>, 'sender'>,
): LogRow {
  return {
    id: Number(r.id),
    sendId: Number(r.send_id),
    recipient: r.recipient,
    sender: r.sender,
    state: r.state,
    smsCount: r.sms_count,
    createdAt: Number(r.created_at),
  };
}

export class SqlPanelQueries extends StorePart implements PanelQueries {
  /** The executor with the rollup tables, which only these queries read. */
  private readonly tables: Kysely<Database & RollupTables>;

  constructor(context: PartContext) {
    super(context);
    this.tables = context.db.withTables<RollupTables>();
  }

  async dailyCounts(accountId: number, fromDay: number, toDay: number): Promise<DayCounts[]> {
    const rows = await this.tables
      .selectFrom('daily_counts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .orderBy('day')
      .execute();
    return rows.map((r) => ({ day: Number(r.day), ...counts(r) }));
  }

  async messageLog(
    accountId: number,
    filter: MessageFilter,
    after: LogCursor | null,
    limit: number,
  ): Promise<LogRow[]> {
    if (filter.number === undefined) return this.logPage(accountId, filter, after, limit, null);
    // By number: the number search the deriver writes (migration 0035) gives the messages to
    // the number newest first, a page at a time; the log's other filters then pick among them.
    const found: LogRow[] = [];
    let cursor = after;
    for (;;) {
      const page = await this.tables
        .selectFrom('message_numbers')
        .select(['message_id', 'created_at'])
        .where('account_id', '=', accountId)
        .where('recipient', '=', filter.number)
        .$if(filter.from !== undefined, (q) => q.where('created_at', '>=', filter.from ?? 0))
        .$if(filter.to !== undefined, (q) => q.where('created_at', '<', filter.to ?? 0))
        .$if(cursor !== null, (q) =>
          q.where(sql<boolean>`(created_at, message_id) < (${cursor?.createdAt ?? 0}, ${cursor?.id ?? 0})`),
        )
        .orderBy('created_at', 'desc')
        .orderBy('message_id', 'desc')
        .limit(numbersPage)
        .execute();
      if (page.length === 0) return found;
      const ids = page.map((r) => Number(r.message_id));
      found.push(...(await this.logPage(accountId, filter, cursor, limit - found.length, ids)));
      const last = page[page.length - 1];
      if (found.length >= limit || page.length < numbersPage || !last) return found;
      cursor = { createdAt: Number(last.created_at), id: Number(last.message_id) };
    }
  }

  /** A page of the log, newest first: of the account's messages, or of those among `ids`. */
  private async logPage(
    accountId: number,
    filter: MessageFilter,
    after: LogCursor | null,
    limit: number,
    ids: number[] | null,
  ): Promise<LogRow[]> {
    const rows = await this.tables
      .selectFrom('messages as m')
      .innerJoin('sends as s', 's.id', 'm.send_id')
      .select(['m.id', 'm.send_id', 'm.recipient', 's.sender', 'm.state', 'm.sms_count', 'm.created_at'])
      .where('m.account_id', '=', accountId)
      .$if(ids !== null, (q) => q.where('m.id', 'in', ids ?? []))
      .$if(filter.from !== undefined, (q) => q.where('m.created_at', '>=', filter.from ?? 0))
      .$if(filter.to !== undefined, (q) => q.where('m.created_at', '<', filter.to ?? 0))
      .$if(filter.sendId !== undefined, (q) => q.where('m.send_id', '=', filter.sendId ?? 0))
      .$if(filter.sender !== undefined, (q) => q.where('s.sender', '=', filter.sender ?? ''))
      .$if(filter.outcome === 'delivered', (q) => q.where('m.state', '=', 'delivered'))
      .$if(filter.outcome === 'failed', (q) => q.where('m.state', 'in', ['failed', 'expired']))
      .$if(filter.outcome === 'pending', (q) => q.where('m.state', 'in', ['queued', 'submitting', 'sent']))
      // Keyset: strictly older than the last row shown, in the index's own order.
      .$if(after !== null, (q) =>
        q.where(sql<boolean>`(m.created_at, m.id) < (${after?.createdAt ?? 0}, ${after?.id ?? 0})`),
      )
      .orderBy('m.created_at', 'desc')
      .orderBy('m.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toLogRow);
  }

  async message(accountId: number, messageId: number): Promise<MessageDetail | null> {
    const r = await accountMessage(this.db, accountId, messageId)
      .select([
        'm.id',
        'm.send_id',
        'm.recipient',
        's.sender',
        'm.state',
        'm.sms_count',
        'm.created_at',
        'm.text',
        's.text as send_text',
        'm.operator',
        'm.carrier',
        'm.detail',
        'm.submitted_at',
        'm.done_at',
        's.kind',
      ])
      .executeTakeFirst();
    if (!r) return null;
    const parts = await this.tables
      .selectFrom('message_parts')
      .select(['part_no', 'state', 'detail', 'done_at'])
      .where('message_id', '=', messageId)
      .orderBy('part_no')
      .execute();
    return {
      ...toLogRow(r),
      text: r.text ?? r.send_text ?? '',
      operator: r.operator,
      carrier: r.carrier,
      detail: r.detail,
      submittedAt: num(r.submitted_at),
      doneAt: num(r.done_at),
      sendKind: r.kind,
      parts: parts.map((p) => ({ partNo: p.part_no, state: p.state, detail: p.detail, doneAt: num(p.done_at) })),
    };
  }

  private campaignQuery(accountId: number) {
    return this.tables
      .selectFrom('sends as s')
      .leftJoin('send_counts as c', 'c.send_id', 's.id')
      .select([
        's.id',
        's.kind',
        's.sender',
        's.text',
        's.scheduled_at',
        's.total_numbers',
        's.invalid_numbers',
        's.blocked_numbers',
        's.sms_cost',
        's.expanded_count',
        's.created_at',
        's.control',
      ])
      .select(['c.messages', 'c.sms', 'c.delivered', 'c.failed'])
      .where('s.account_id', '=', accountId);
  }

  private static toCampaign(r: {
    id: number;
    kind: SendKind;
    sender: string;
    text: string | null;
    scheduled_at: number | null;
    total_numbers: number;
    invalid_numbers: number;
    blocked_numbers: number;
    sms_cost: number;
    expanded_count: number;
    created_at: number;
    control: 'paused' | 'cancelled' | null;
    messages: number | null;
    sms: number | null;
    delivered: number | null;
    failed: number | null;
  }): CampaignRow {
    return {
      id: Number(r.id),
      kind: r.kind,
      sender: r.sender,
      text: r.text,
      scheduledAt: num(r.scheduled_at),
      totalNumbers: r.total_numbers,
      invalidNumbers: r.invalid_numbers,
      blockedNumbers: r.blocked_numbers,
      smsCost: Number(r.sms_cost),
      expandedCount: r.expanded_count,
      control: r.control,
      createdAt: Number(r.created_at),
      counts: counts(r),
    };
  }

  async campaigns(accountId: number, before: number | null, limit: number): Promise<CampaignRow[]> {
    const rows = await this.campaignQuery(accountId)
      .where('s.kind', 'in', campaignKinds)
      .$if(before !== null, (q) => q.where('s.id', '<', before ?? 0))
      .orderBy('s.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => SqlPanelQueries.toCampaign(r));
  }

  async latestSends(accountId: number, limit: number): Promise<CampaignRow[]> {
    // sends_account_time (account_id, created_at) gives the order without a sort.
    const rows = await this.campaignQuery(accountId)
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => SqlPanelQueries.toCampaign(r));
  }

  async campaign(accountId: number, sendId: number): Promise<CampaignRow | null> {
    const r = await this.campaignQuery(accountId).where('s.id', '=', sendId).executeTakeFirst();
    return r ? SqlPanelQueries.toCampaign(r) : null;
  }

  async campaignRows(sendId: number, afterId: number, limit: number): Promise<ExportRow[]> {
    const rows = await this.tables
      .selectFrom('messages')
      .select(['id', 'recipient', 'operator', 'state', 'sms_count', 'created_at', 'submitted_at', 'done_at', 'detail'])
      .where('send_id', '=', sendId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      recipient: r.recipient,
      operator: r.operator,
      state: r.state,
      smsCount: r.sms_count,
      createdAt: Number(r.created_at),
      submittedAt: num(r.submitted_at),
      doneAt: num(r.done_at),
      detail: r.detail,
    }));
  }

  private groupQuery(accountId: number) {
    return this.tables
      .selectFrom('contact_groups as g')
      .select(['g.id', 'g.name', 'g.created_at'])
      .select((eb) =>
        eb
          .selectFrom('contacts as c')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('c.group_id', '=', 'g.id')
          .as('contacts'),
      )
      .where('g.account_id', '=', accountId);
  }

  async groups(accountId: number): Promise<GroupRow[]> {
    const rows = await this.groupQuery(accountId).orderBy('g.id', 'desc').execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      createdAt: Number(r.created_at),
      contacts: Number(r.contacts ?? 0),
    }));
  }

  async group(accountId: number, groupId: number): Promise<GroupRow | null> {
    if (groupId > maxSerial) return null;
    const r = await this.groupQuery(accountId).where('g.id', '=', groupId).executeTakeFirst();
    return r ? { id: r.id, name: r.name, createdAt: Number(r.created_at), contacts: Number(r.contacts ?? 0) } : null;
  }

  private async ownsGroup(accountId: number, groupId: number): Promise<boolean> {
    if (groupId > maxSerial) return false;
    const row = await this.tables
      .selectFrom('contact_groups')
      .select('id')
      .where('id', '=', groupId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async contacts(
    accountId: number,
    groupId: number,
    after: string | null,
    limit: number,
  ): Promise<ContactRow[] | null> {
    if (!(await this.ownsGroup(accountId, groupId))) return null;
    const rows = await this.tables
      .selectFrom('contacts')
      .select(['number', 'name', 'created_at'])
      .where('group_id', '=', groupId)
      .$if(after !== null, (q) => q.where('number', '>', after ?? ''))
      .orderBy('number')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ number: r.number, name: r.name, createdAt: Number(r.created_at) }));
  }

  async nameContacts(
    accountId: number,
    groupId: number,
    names: readonly { number: string; name: string }[],
  ): Promise<boolean> {
    if (!(await this.ownsGroup(accountId, groupId))) return false;
    await this.transact(async (self) => {
      for (const { number, name } of names)
        await self.tables
          .updateTable('contacts')
          .set({ name })
          .where('group_id', '=', groupId)
          .where('number', '=', number)
          .execute();
    });
    return true;
  }

  async groupNumbers(accountId: number, groupId: number): Promise<string[] | null> {
    if (!(await this.ownsGroup(accountId, groupId))) return null;
    const rows = await this.tables
      .selectFrom('contacts')
      .select('number')
      .where('group_id', '=', groupId)
      .orderBy('number')
      .execute();
    return rows.map((r) => r.number);
  }

  async removeContact(accountId: number, groupId: number, number: string): Promise<boolean> {
    if (!(await this.ownsGroup(accountId, groupId))) return false;
    const result = await this.tables
      .deleteFrom('contacts')
      .where('group_id', '=', groupId)
      .where('number', '=', number)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async blocked(accountId: number, search: string, after: string | null, limit: number): Promise<BlockedRow[]> {
    const digits = search.replace(/\D/g, '');
    const rows = await this.tables
      .selectFrom('blocked_numbers')
      .select(['number', 'created_at'])
      .where('account_id', '=', accountId)
      .$if(digits !== '', (q) => q.where('number', 'like', `%${digits}%`))
      .$if(after !== null, (q) => q.where('number', '>', after ?? ''))
      .orderBy('number')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ number: r.number, createdAt: Number(r.created_at) }));
  }

  async panelKeyId(accountId: number): Promise<number | null> {
    const row = await this.tables
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', accountId)
      .where('key_hint', '=', panelKeyHint)
      .orderBy('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async blockedAmong(accountId: number, subscribers: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < subscribers.length; i += keyChunk) {
      const chunk = subscribers.slice(i, i + keyChunk);
      const rows = await this.tables
        .selectFrom('blocked_numbers')
        .select('subscriber')
        .where('account_id', '=', accountId)
        .where('subscriber', 'in', chunk)
        .execute();
      for (const r of rows) found.add(r.subscriber);
    }
    return found;
  }
}
