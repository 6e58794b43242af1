/**
 * Messages and their parts through their lives: bulk and scheduled sends written out in
 * chunks, claims and leases, submit outcomes, receipts and their matching, retries and
 * failures, each state change with its webhook event in the same transaction. Why one file
 * (519 lines): every write here moves the one delivery state machine (domain/delivery-state)
 * and must guard the same transitions in SQL; read-only queries live in
 * kysely-message-queries.ts and row mapping in message-rows.ts already. Splitting the writers
 * (sends, submits, receipts) is part of the store re-cut of issue 20.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { withTransaction } from './executor.js';
import { sql } from 'kysely';
import type { Insertable, Selectable } from 'kysely';
import type { MessagePartsTable, MessagesTable, SendsTable, UnmatchedReportsTable } from './schema.js';
import type { ClaimedMessage, DueExpansion, MessageDefaults, MessageStore, NewMessage, NewSend, SentItem, Transition } from '../../ports/message-store.js';
import type { CarrierReport, SmsLang } from '../../ports/carrier.js';
import { combineParts, isFinal } from '../../domain/delivery-state.js';
import type { FinalState, PartState } from '../../domain/delivery-state.js';
import { recordTransitionEvents, rowChunk } from './event-outbox.js';
import { KyselyMessageQueries } from './kysely-message-queries.js';
import { groupBy, messageRow, outcomeOf, sendRow, toReport } from './message-rows.js';
import { columnsOf, preparedList, preparedQuery, preparedRows } from './prepared-query.js';

// The statements of every send batch, compiled once per database (and per row count).
const advanceIds = preparedQuery(
  (db, p: { count: number }) =>
    db
      .updateTable('id_counter')
      .set({ next_id: sql`next_id + ${p.count}` })
      .where('name', '=', 'ids')
      .returning('next_id'),
  ['count'],
);
const nextIds = preparedQuery((db, p: { count: number }) => ({ compile: () => sql<{ id: number }>`SELECT nextval('haberci_ids')::int8 AS id FROM generate_series(1, ${p.count})`.compile(db) }), ['count']);
/** Rows per prepared INSERT: each row count is compiled once, so the counts are kept few. */
const preparedChunk = 256;
const sendColumns = columnsOf<Insertable<SendsTable>>({
  id: true,
  account_id: true,
  key_id: true,
  kind: true,
  sender: true,
  text: true,
  lang: true,
  content_type: true,
  scheduled_at: true,
  sandbox: true,
  total_numbers: true,
  invalid_numbers: true,
  blocked_numbers: true,
  sms_cost: true,
  pending_recipients: true,
  expanded_count: true,
  expand_lease_until: true,
  priority: true,
  created_at: true,
  updated_at: true,
});
const messageColumns = columnsOf<Insertable<MessagesTable>>({
  id: true,
  send_id: true,
  account_id: true,
  key_id: true,
  recipient: true,
  text: true,
  sms_count: true,
  operator: true,
  state: true,
  priority: true,
  due_at: true,
  lease_until: true,
  attempts: true,
  carrier: true,
  submitted_at: true,
  done_at: true,
  detail: true,
  sandbox: true,
  created_at: true,
});
const sendsInsert = preparedRows((db, rows: Insertable<SendsTable>[]) => db.insertInto('sends').values(rows), sendColumns);
const messagesInsert = preparedRows((db, rows: Insertable<MessagesTable>[]) => db.insertInto('messages').values(rows), messageColumns);

// The statements of the dispatcher and of receipts, compiled once per database (and per
// padded list length); `locking` is for PostgreSQL, whose workers lock what they claim.
const claimDueOf = (locking: boolean) =>
  preparedQuery(
    (db, p: { now: number; limit: number; leaseUntil: number }) =>
      db
        .updateTable('messages')
        .set({ state: 'submitting', lease_until: p.leaseUntil, attempts: sql`attempts + 1` })
        .where(
          'id',
          'in',
          db
            .selectFrom('messages')
            .select('id')
            .where('state', '=', 'queued')
            .where('due_at', '<=', p.now)
            .orderBy('priority')
            .orderBy('due_at')
            .orderBy('id')
            .limit(p.limit)
            // Several workers on PostgreSQL: each skips rows another is claiming.
            .$if(locking, (qb) => qb.forUpdate().skipLocked()),
        )
        .returning('id'),
    ['now', 'limit', 'leaseUntil'],
  );
const claimDue = { sqlite: claimDueOf(false), postgres: claimDueOf(true) };
const claimedMessages = preparedList(
  (db, _: Record<string, never>, ids: number[]) =>
    db
      .selectFrom('messages as m')
      .innerJoin('sends as s', 's.id', 'm.send_id')
      .select(['m.id', 'm.send_id', 'm.key_id', 'm.recipient', 'm.text', 's.text as send_text', 's.sender', 's.lang', 'm.sandbox', 'm.attempts', 'm.priority', 'm.due_at'])
      .where('m.id', 'in', ids)
      .orderBy('m.priority')
      .orderBy('m.due_at')
      .orderBy('m.id'),
  [],
);
const markSent = preparedList(
  (db, p: { carrier: string; now: number }, ids: number[]) =>
    db
      .updateTable('messages')
      .set({ state: 'sent', carrier: p.carrier, submitted_at: p.now, lease_until: null, detail: null })
      .where('id', 'in', ids)
      .where('state', '=', 'submitting')
      .returning(['id', 'key_id']),
  ['carrier', 'now'],
);
type SentPart = Pick<Insertable<MessagePartsTable>, 'carrier_message_id' | 'message_id' | 'part_no'>;
const partsInsert = preparedRows(
  (db, rows: SentPart[]) =>
    db
      .insertInto('message_parts')
      .values(rows.map((r) => ({ ...r, state: 'sent' as const, detail: null, done_at: null })))
      // An operator may hand out an id again (after a restart, or years later): the new
      // submission takes the id over once the old part is settled.
      .onConflict((oc) =>
        oc
          .column('carrier_message_id')
          .doUpdateSet((eb) => ({ message_id: eb.ref('excluded.message_id'), part_no: eb.ref('excluded.part_no'), state: 'sent', detail: null, done_at: null }))
          .where('message_parts.state', '<>', 'sent'),
      ),
  columnsOf<SentPart>({ carrier_message_id: true, message_id: true, part_no: true }),
);
const earlyReports = preparedList((db, _: Record<string, never>, ids: string[]) => db.selectFrom('unmatched_reports').selectAll().where('carrier_message_id', 'in', ids), []);
const partsNamed = preparedList((db, _: Record<string, never>, ids: string[]) => db.selectFrom('message_parts').select(['carrier_message_id', 'message_id']).where('carrier_message_id', 'in', ids), []);
const messagesToSettleOf = (locking: boolean) =>
  preparedList(
    (db, _: Record<string, never>, ids: number[]) =>
      db
        .selectFrom('messages')
        .select(['id', 'state', 'key_id'])
        .where('id', 'in', ids)
        .orderBy('id')
        .$if(locking, (qb) => qb.forUpdate()),
    [],
  );
const messagesToSettle = { sqlite: messagesToSettleOf(false), postgres: messagesToSettleOf(true) };
const settleParts = preparedList(
  (db, p: { state: FinalState; detail: string | null; doneAt: number }, ids: string[]) =>
    db
      .updateTable('message_parts')
      .set({ state: p.state, detail: p.detail, done_at: p.doneAt })
      .where('carrier_message_id', 'in', ids)
      .where('state', '=', 'sent')
      .returning('carrier_message_id'),
  ['state', 'detail', 'doneAt'],
);
const partStates = preparedList((db, _: Record<string, never>, ids: number[]) => db.selectFrom('message_parts').select(['message_id', 'state']).where('message_id', 'in', ids), []);
const settleMessages = preparedList(
  (db, p: { state: FinalState; detail: string | null; doneAt: number }, ids: number[]) =>
    db.updateTable('messages').set({ state: p.state, done_at: p.doneAt, detail: p.detail }).where('id', 'in', ids),
  ['state', 'detail', 'doneAt'],
);

/** The message store: the reads of KyselyMessageQueries and every write of the pipeline. */
export class KyselyMessageStore extends KyselyMessageQueries implements MessageStore {
  private inTransaction<T>(work: (store: KyselyMessageStore) => Promise<T>): Promise<T> {
    return withTransaction(this.db, (trx) => work(trx === this.db ? this : new KyselyMessageStore(trx, this.dialect)));
  }

  async allocateIds(count: number): Promise<number[]> {
    if (count <= 0) return [];
    if (this.dialect === 'postgres') {
      const result = await this.db.executeQuery(nextIds(this.db, { count }));
      return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    }
    const row = (await this.db.executeQuery(advanceIds(this.db, { count }))).rows[0];
    if (!row) throw new Error('the id counter is missing');
    const end = Number(row.next_id);
    return Array.from({ length: count }, (_, i) => end - count + i);
  }

  async insertSend(id: number, s: NewSend): Promise<void> {
    await this.insertSends([{ id, send: s }]);
  }

  async insertSends(sends: readonly { id: number; send: NewSend }[]): Promise<void> {
    for (let start = 0; start < sends.length; start += preparedChunk) {
      await this.db.executeQuery(sendsInsert(this.db, sends.slice(start, start + preparedChunk).map(({ id, send }) => sendRow(id, send))));
    }
  }

  async insertMessages(send: MessageDefaults, ids: readonly number[], messages: readonly NewMessage[]): Promise<void> {
    await this.insertMessagesOf([{ send, ids, messages }]);
  }

  async insertMessagesOf(groups: readonly { send: MessageDefaults; ids: readonly number[]; messages: readonly NewMessage[] }[]): Promise<void> {
    const rows = groups.flatMap((g) => g.messages.map((m, i) => messageRow(g.send, g.ids[i] ?? 0, m)));
    for (let start = 0; start < rows.length; start += preparedChunk) {
      await this.db.executeQuery(messagesInsert(this.db, rows.slice(start, start + preparedChunk)));
    }
  }

  async claimExpansion(now: number, leaseUntil: number): Promise<DueExpansion | null> {
    return this.inTransaction(async (self) => {
      const due = await self.db
        .selectFrom('sends')
        .select(['id', 'account_id', 'key_id', 'kind', 'text', 'lang', 'sandbox', 'priority', 'expanded_count', 'pending_recipients'])
        .where('pending_recipients', 'is not', null)
        .where((eb) => eb.or([eb('scheduled_at', 'is', null), eb('scheduled_at', '<=', now)]))
        .where((eb) => eb.or([eb('expand_lease_until', 'is', null), eb('expand_lease_until', '<=', now)]))
        .orderBy('priority')
        .orderBy('id')
        .limit(1)
        .$if(self.dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
        .executeTakeFirst();
      if (!due || due.pending_recipients === null) return null;
      await self.db.updateTable('sends').set({ expand_lease_until: leaseUntil }).where('id', '=', due.id).execute();
      return {
        id: Number(due.id),
        accountId: due.account_id,
        keyId: due.key_id,
        kind: due.kind,
        text: due.text,
        lang: due.lang as SmsLang,
        sandbox: due.sandbox === 1,
        priority: due.priority,
        expandedCount: due.expanded_count,
        pendingRecipients: due.pending_recipients,
      };
    });
  }

  async expandChunk(send: DueExpansion, from: number, messages: readonly NewMessage[], done: boolean, now: number, _leaseUntil: number): Promise<boolean> {
    return this.inTransaction(async (self) => {
      // Only the worker that knows where the list stands may write the next chunk. The lease
      // covers one chunk and is released with it: kept until the next chunk, it would stop
      // every worker, this one included, from claiming the send again until it ran out
      // (a 50,000-number campaign took ten lease periods to be written out).
      const moved = await self.db
        .updateTable('sends')
        .set({ expanded_count: from + messages.length, updated_at: now, expand_lease_until: null, ...(done ? { pending_recipients: null } : {}) })
        .where('id', '=', send.id)
        .where('expanded_count', '=', from)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      const ids = await self.allocateIds(messages.length);
      await self.insertMessages({ id: send.id, accountId: send.accountId, keyId: send.keyId, sandbox: send.sandbox, createdAt: now, dueAt: now, priority: send.priority }, ids, messages);
      return true;
    });
  }

  async claimDue(now: number, limit: number, leaseUntil: number): Promise<ClaimedMessage[]> {
    return this.inTransaction(async (self) => {
      const claimed = (await self.db.executeQuery(claimDue[self.dialect](self.db, { now, limit, leaseUntil }))).rows;
      if (claimed.length === 0) return [];
      const rows = (
        await self.db.executeQuery(
          claimedMessages(
            self.db,
            {},
            claimed.map((c) => Number(c.id)),
          ),
        )
      ).rows;
      return rows.map((r) => ({
        id: Number(r.id),
        sendId: Number(r.send_id),
        keyId: r.key_id,
        recipient: r.recipient,
        text: r.text ?? r.send_text ?? '',
        sender: r.sender,
        lang: r.lang as SmsLang,
        sandbox: r.sandbox === 1,
        attempts: r.attempts,
      }));
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

  async requeueExpiredLeases(now: number): Promise<number> {
    const result = await this.db
      .updateTable('messages')
      .set({ state: 'queued', lease_until: null })
      .where('state', '=', 'submitting')
      .where('lease_until', '<=', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async markSentMany(items: readonly SentItem[], now: number): Promise<Transition[][]> {
    if (items.length === 0) return [];
    return this.inTransaction(async (self) => {
      const sentKeys = new Map<number, number>();
      for (const carrier of new Set(items.map((i) => i.carrier))) {
        const ids = items.filter((i) => i.carrier === carrier).map((i) => i.messageId);
        const rows = (await self.db.executeQuery(markSent(self.db, { carrier, now }, ids))).rows;
        for (const r of rows) sentKeys.set(Number(r.id), r.key_id);
      }
      const parts = items.flatMap((i) => i.carrierMessageIds.map((id, n): SentPart => ({ carrier_message_id: id, message_id: i.messageId, part_no: n + 1 })));
      for (let start = 0; start < parts.length; start += preparedChunk) {
        await self.db.executeQuery(partsInsert(self.db, parts.slice(start, start + preparedChunk)));
      }
      const result = items.map((i): Transition[] => {
        const keyId = sentKeys.get(i.messageId);
        return keyId === undefined ? [] : [{ messageId: i.messageId, keyId, state: 'sent' }];
      });
      await self.recordEvents(result.flat(), now);
      // Receipts may have come before these submit responses: apply them now.
      const early = parts.length === 0 ? [] : await self.earlyReports(parts.map((p) => p.carrier_message_id));
      if (early.length > 0) {
        await self.db.deleteFrom('unmatched_reports').where('carrier_message_id', 'in', early.map((r) => r.carrier_message_id)).execute();
        const applied = await self.applyReports(early.map(toReport), now);
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

  /** Reports kept for these parts before their submit's answer came. */
  private async earlyReports(ids: readonly string[]): Promise<Selectable<UnmatchedReportsTable>[]> {
    const found: Selectable<UnmatchedReportsTable>[] = [];
    for (let start = 0; start < ids.length; start += rowChunk) {
      found.push(...(await this.db.executeQuery(earlyReports(this.db, {}, ids.slice(start, start + rowChunk)))).rows);
    }
    return found;
  }

  async markRetry(messageId: number, dueAt: number, detail: string): Promise<void> {
    await this.db
      .updateTable('messages')
      .set({ state: 'queued', due_at: dueAt, lease_until: null, detail })
      .where('id', '=', messageId)
      .where('state', '=', 'submitting')
      .execute();
  }

  async markFailed(messageId: number, detail: string, now: number): Promise<Transition | null> {
    return this.inTransaction(async (self) => {
      const row = await self.db
        .updateTable('messages')
        .set({ state: 'failed', done_at: now, lease_until: null, detail })
        .where('id', '=', messageId)
        .where('state', 'in', ['queued', 'submitting'])
        .returning('key_id')
        .executeTakeFirst();
      const t: Transition | null = row ? { messageId, keyId: row.key_id, state: 'failed' } : null;
      if (t) await self.recordEvents([t], now);
      return t;
    });
  }

  async applyReport(report: CarrierReport, now: number): Promise<Transition | 'unmatched' | null> {
    return (await this.applyReports([report], now))[0] ?? null;
  }

  /**
   * Applies reports in one transaction; each gets its own answer, in order. A batch is
   * applied a chunk at a time (as if one report after another: the first receipt of a part
   * counts), each chunk in a few set-based statements; between chunks other work may run.
   */
  async applyReports(reports: readonly CarrierReport[], now: number): Promise<(Transition | 'unmatched' | null)[]> {
    if (reports.length === 0) return [];
    return this.inTransaction(async (self) => {
      const answers: (Transition | 'unmatched' | null)[] = [];
      for (let start = 0; start < reports.length; start += rowChunk) {
        if (start > 0) await yieldToEventLoop();
        answers.push(...(await self.applyReportChunk(reports.slice(start, start + rowChunk), now)));
      }
      return answers;
    });
  }

  /** Up to `rowChunk` reports, inside the caller's transaction. */
  private async applyReportChunk(reports: readonly CarrierReport[], now: number): Promise<(Transition | 'unmatched' | null)[]> {
    const ids = [...new Set(reports.map((r) => r.carrierMessageId))];
    const parts = (await this.db.executeQuery(partsNamed(this.db, {}, ids))).rows;
    const messageOf = new Map(parts.map((p) => [p.carrier_message_id, Number(p.message_id)]));
    await this.keepUnmatched(
      reports.filter((r) => !messageOf.has(r.carrierMessageId)),
      now,
    );
    const messageIds = [...new Set(messageOf.values())].sort((a, b) => a - b);
    if (messageIds.length === 0) return reports.map(() => 'unmatched' as const);
    // Parts of one message are settled one transaction at a time (row locks in id order on
    // PostgreSQL; SQLite has one writer), so the last part sees all the others.
    const messages = (await this.db.executeQuery(messagesToSettle[this.dialect](this.db, {}, messageIds))).rows;
    const messageRows = new Map(messages.map((m) => [Number(m.id), m]));
    // A part takes the first receipt that names it while it is still 'sent'.
    const firstOf = new Map<string, number>();
    reports.forEach((r, i) => {
      if (messageOf.has(r.carrierMessageId) && !firstOf.has(r.carrierMessageId)) firstOf.set(r.carrierMessageId, i);
    });
    const changed = new Set<string>();
    for (const group of groupBy([...firstOf.values()], (i) => outcomeOf(reports[i] as CarrierReport, now))) {
      const ids = group.items.map((i) => (reports[i] as CarrierReport).carrierMessageId);
      const rows = (await this.db.executeQuery(settleParts(this.db, group.outcome, ids))).rows;
      for (const r of rows) changed.add(r.carrier_message_id);
    }
    // Each message changed by this chunk, with the index of the last report that changed it.
    const touched = new Map<number, number>();
    reports.forEach((r, i) => {
      const messageId = messageOf.get(r.carrierMessageId);
      if (messageId === undefined || firstOf.get(r.carrierMessageId) !== i || !changed.has(r.carrierMessageId)) return;
      const row = messageRows.get(messageId);
      if (row && !isFinal(row.state)) touched.set(messageId, i);
    });
    const answers: (Transition | 'unmatched' | null)[] = reports.map((r) => (messageOf.has(r.carrierMessageId) ? null : 'unmatched'));
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
      if (final && row) settled.push({ messageId, index, keyId: row.key_id, final });
    }
    for (const group of groupBy(settled, (m) => ({ ...outcomeOf(reports[m.index] as CarrierReport, now), state: m.final }))) {
      await this.db.executeQuery(
        settleMessages(
          this.db,
          group.outcome,
          group.items.map((m) => m.messageId),
        ),
      );
    }
    for (const m of settled) answers[m.index] = { messageId: m.messageId, keyId: m.keyId, state: m.final };
    await this.recordEvents(
      answers.filter((a): a is Transition => a !== null && a !== 'unmatched'),
      now,
    );
    return answers;
  }

  /** Keeps reports whose part is not known (yet): a later report of the same id replaces state and detail. */
  private async keepUnmatched(reports: readonly CarrierReport[], now: number): Promise<void> {
    if (reports.length === 0) return;
    const rows = new Map<string, Insertable<UnmatchedReportsTable>>();
    for (const r of reports) {
      const kept = rows.get(r.carrierMessageId);
      if (kept) rows.set(r.carrierMessageId, { ...kept, state: r.status, detail: r.detail ?? null });
      else rows.set(r.carrierMessageId, { carrier_message_id: r.carrierMessageId, state: r.status, detail: r.detail ?? null, done_at: r.doneAt ?? now, received_at: now });
    }
    await this.db
      .insertInto('unmatched_reports')
      .values([...rows.values()])
      .onConflict((oc) => oc.column('carrier_message_id').doUpdateSet((eb) => ({ state: eb.ref('excluded.state'), detail: eb.ref('excluded.detail') })))
      .execute();
  }

  /** Writes the webhook events of these transitions and marks the ones that got one. */
  private async recordEvents(transitions: readonly Transition[], now: number): Promise<void> {
    for (const t of await recordTransitionEvents(this.db, transitions, now)) t.webhookEvent = true;
  }

  async retryUnmatchedReports(now: number): Promise<Transition[]> {
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
      await this.inTransaction(async (self) => {
        // Only what this transaction took out is applied: another worker may have got there first.
        const taken = await self.db.deleteFrom('unmatched_reports').where('carrier_message_id', 'in', ids).returningAll().execute();
        if (taken.length === 0) return;
        for (const t of await self.applyReports(taken.map(toReport), now)) if (t && t !== 'unmatched') transitions.push(t);
      });
    }
    return transitions;
  }

  async forgetIdempotent(accountId: number, key: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('idem_key', '=', key).execute();
  }

  async saveIdempotent(accountId: number, key: string, requestHash: string, response: string, now: number): Promise<boolean> {
    const result = await this.db
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, idem_key: key, request_hash: requestHash, response, created_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'idem_key']).doUpdateSet({ request_hash: requestHash, response, created_at: now }).where('idempotency_keys.created_at', '<', now - 24 * 3600_000))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
