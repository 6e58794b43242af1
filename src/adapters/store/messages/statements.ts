/**
 * The statements of the send paths, the dispatcher and receipts, compiled once per
 * database (and per row count or padded list length); `locking` variants are for
 * PostgreSQL, whose workers lock what they claim.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { MessagePartsTable, MessagesTable, SendsTable } from '../schema.js';
import { moves } from '../../../domain/delivery-state.js';
import type { FinalState } from '../../../domain/delivery-state.js';
import { columnsOf, preparedList, preparedQuery, preparedRows } from '../prepared-query.js';
import { perDialect } from '../dialect-sql.js';
import { refundTarget } from './refund-policy.js';

// The statements of every send batch, compiled once per database (and per row count).
/** Rows per prepared INSERT: each row count is compiled once, so the counts are kept few. */
export const preparedChunk = 256;
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
  iys: true,
  control: true,
  send_window: true,
  speed: true,
  valid_until: true,
  pace_next_at: true,
  short_links: true,
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
export const sendsInsert = preparedRows(
  (db, rows: Insertable<SendsTable>[]) => db.insertInto('sends').values(rows),
  sendColumns,
);
export const messagesInsert = preparedRows(
  (db, rows: Insertable<MessagesTable>[]) => db.insertInto('messages').values(rows),
  messageColumns,
);

// The statements of the dispatcher and of receipts, compiled once per database (and per
// padded list length), with the dialect's row locks (PostgreSQL's workers lock what they claim).
export const claimDue = perDialect((dialect) =>
  preparedQuery(
    (db, p: { now: number; limit: number; leaseUntil: number }) =>
      db
        .updateTable('messages')
        .set({ state: moves.claim.to[0], lease_until: p.leaseUntil, attempts: sql`attempts + 1` })
        .where(
          'id',
          'in',
          db
            .selectFrom('messages')
            .select('id')
            .where('state', '=', moves.claim.from[0])
            .where('due_at', '<=', p.now)
            .orderBy('priority')
            .orderBy('due_at')
            .orderBy('id')
            .limit(p.limit)
            // Several workers on PostgreSQL: each skips rows another is claiming.
            .$call((qb) => dialect.claim(qb)),
        )
        .returning('id'),
    ['now', 'limit', 'leaseUntil'],
  ),
);
export const claimedMessages = preparedList(
  (db, _: Record<string, never>, ids: number[]) =>
    db
      .selectFrom('messages as m')
      .innerJoin('sends as s', 's.id', 'm.send_id')
      // An OTP's real text is sealed beside its code's hash (migration 0026).
      .leftJoin('otp_codes as o', 'o.message_id', 'm.id')
      .select([
        'm.id',
        'm.send_id',
        'm.key_id',
        'm.recipient',
        'm.text',
        's.text as send_text',
        'o.sealed_text',
        's.sender',
        's.lang',
        // A send's window and validity (migration 0059): null on sends that asked for neither.
        's.send_window',
        's.valid_until',
        'm.sandbox',
        'm.attempts',
        'm.account_id',
        'm.priority',
        'm.due_at',
        's.control',
      ])
      .where('m.id', 'in', ids)
      .orderBy('m.priority')
      .orderBy('m.due_at')
      .orderBy('m.id'),
  [],
);
export const markSent = preparedList(
  (db, p: { carrier: string; now: number }, ids: number[]) =>
    db
      .updateTable('messages')
      .set({ state: moves.accept.to[0], carrier: p.carrier, submitted_at: p.now, lease_until: null, detail: null })
      .where('id', 'in', ids)
      .where('state', '=', moves.accept.from[0])
      .returning(['id', 'key_id']),
  ['carrier', 'now'],
);
export type SentPart = Pick<Insertable<MessagePartsTable>, 'carrier_message_id' | 'message_id' | 'part_no'>;
export const partsInsert = preparedRows(
  (db, rows: SentPart[]) =>
    db
      .insertInto('message_parts')
      .values(rows.map((r) => ({ ...r, state: 'sent' as const, detail: null, done_at: null })))
      // An operator may hand out an id again (after a restart, or years later): the new
      // submission takes the id over once the old part is settled.
      .onConflict((oc) =>
        oc
          .column('carrier_message_id')
          .doUpdateSet((eb) => ({
            message_id: eb.ref('excluded.message_id'),
            part_no: eb.ref('excluded.part_no'),
            state: 'sent',
            detail: null,
            done_at: null,
          }))
          .where('message_parts.state', '<>', 'sent'),
      ),
  columnsOf<SentPart>({ carrier_message_id: true, message_id: true, part_no: true }),
);
export const earlyReceipts = preparedList(
  (db, _: Record<string, never>, ids: string[]) =>
    db.selectFrom('unmatched_reports').selectAll().where('carrier_message_id', 'in', ids),
  [],
);
export const partsNamed = preparedList(
  (db, _: Record<string, never>, ids: string[]) =>
    db.selectFrom('message_parts').select(['carrier_message_id', 'message_id']).where('carrier_message_id', 'in', ids),
  [],
);
export const messagesToSettle = perDialect((dialect) =>
  preparedList(
    (db, _: Record<string, never>, ids: number[]) =>
      db
        .selectFrom('messages')
        // The message's refund policy comes with it (refund-policy.ts): no statement more.
        .select(['id', 'state', 'key_id', 'account_id', 'send_id', 'created_at', 'recipient', 'sms_count'])
        .select(refundTarget.as('refund_to'))
        .where('id', 'in', ids)
        .orderBy('id')
        .$call((qb) => dialect.forUpdate(qb)),
    [],
  ),
);
export const settleParts = preparedList(
  (db, p: { state: FinalState; detail: string | null; doneAt: number }, ids: string[]) =>
    db
      .updateTable('message_parts')
      .set({ state: p.state, detail: p.detail, done_at: p.doneAt })
      .where('carrier_message_id', 'in', ids)
      .where('state', '=', 'sent')
      .returning('carrier_message_id'),
  ['state', 'detail', 'doneAt'],
);
export const partStates = preparedList(
  (db, _: Record<string, never>, ids: number[]) =>
    db.selectFrom('message_parts').select(['message_id', 'state']).where('message_id', 'in', ids),
  [],
);
export const settleMessages = preparedList(
  (db, p: { state: FinalState; detail: string | null; doneAt: number }, ids: number[]) =>
    db.updateTable('messages').set({ state: p.state, done_at: p.doneAt, detail: p.detail }).where('id', 'in', ids),
  ['state', 'detail', 'doneAt'],
);
