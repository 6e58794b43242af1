/**
 * The outbox (ports/outbox.ts): consequences of commits, written in them, claimed by their
 * consumers with a lease (`holder`, `lease_until`). A claim reads the due rows, then takes
 * each by an update that checks the lease again: of two processes claiming one row at once,
 * one takes it (PostgreSQL re-reads the row the other updated; SQLite writes one at a time).
 */
import type { Insertable } from 'kysely';
import { StorePart } from './store-part.js';
import type { OutboxTable } from './schema.js';
import { toInbound } from './inbound-store.js';
import type { FinalState } from '../../domain/delivery-state.js';
import type {
  DueMo,
  DueReceipt,
  OutboxKind,
  OutboxLease,
  OutboxStore,
  OwedSmppPartReceipt,
  OwedSmppReceipt,
} from '../../ports/outbox.js';

const finalStates: readonly FinalState[] = ['delivered', 'failed', 'expired'];
const receiptKinds: readonly OutboxKind[] = ['smpp.receipt', 'smpp.part-receipt'];

export class SqlOutboxStore extends StorePart implements OutboxStore {
  async oweReceipts(receipts: readonly OwedSmppReceipt[]): Promise<void> {
    await this.owe(
      receipts.map((r) => ({
        kind: 'smpp.receipt',
        owner_id: r.smppUserId,
        subject: String(r.messageId),
        ref_id: r.messageId,
        source_addr: r.sourceAddr,
        recipient: null,
        failed_at: null,
        created_at: r.createdAt,
        holder: null,
      })),
    );
  }

  async owePartReceipts(parts: readonly OwedSmppPartReceipt[], now: number): Promise<void> {
    await this.owe(
      parts.map((p) => ({
        kind: 'smpp.part-receipt',
        owner_id: p.smppUserId,
        subject: p.partId,
        ref_id: p.messageId,
        source_addr: p.sourceAddr,
        recipient: p.recipient,
        failed_at: p.messageId === null ? now : null,
        created_at: p.submittedAt,
        holder: null,
      })),
    );
  }

  /** Writes what is owed, a row each, once: a row already owed (same kind and subject) stays as it is. */
  private async owe(rows: readonly Insertable<OutboxTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('outbox')
      .values(rows)
      .onConflict((oc) => oc.columns(['kind', 'subject']).doNothing())
      .execute();
  }

  async oweMo(m: { id: number; accountId: number; receivedAt: number }): Promise<void> {
    const user = await this.db
      .selectFrom('smpp_users')
      .select('id')
      .where('account_id', '=', m.accountId)
      .where('created_at', '<=', m.receivedAt)
      .limit(1)
      .executeTakeFirst();
    if (!user) return;
    await this.owe([
      {
        kind: 'smpp.mo',
        owner_id: m.accountId,
        subject: String(m.id),
        ref_id: m.id,
        source_addr: null,
        recipient: null,
        failed_at: null,
        created_at: m.receivedAt,
        holder: null,
      },
    ]);
  }

  async claimReceipts(smppUserId: number, lease: OutboxLease, limit: number): Promise<DueReceipt[]> {
    const rows = await this.db
      .selectFrom('outbox as o')
      .leftJoin('messages as m', 'm.id', 'o.ref_id')
      .select([
        'o.id',
        'o.kind',
        'o.subject',
        'o.source_addr',
        'o.recipient',
        'o.failed_at',
        'o.created_at',
        'm.recipient as message_recipient',
        'm.state',
        'm.detail',
        'm.created_at as message_created_at',
        'm.done_at',
      ])
      .where('o.kind', 'in', receiptKinds)
      .where('o.owner_id', '=', smppUserId)
      .where('o.lease_until', '<=', lease.now)
      .where((eb) => eb.or([eb('o.failed_at', 'is not', null), eb('m.state', 'in', finalStates)]))
      .orderBy('o.id')
      .limit(limit)
      .execute();
    return (await this.take(rows, (r) => Number(r.id), lease)).map((r) => {
      const part = r.kind === 'smpp.part-receipt';
      const failed = r.failed_at !== null;
      return {
        id: Number(r.id),
        messageId: r.subject,
        sourceAddr: r.source_addr ?? '',
        recipient: (part ? r.recipient : r.message_recipient) ?? '',
        state: failed ? 'rejected' : (r.state as FinalState),
        detail: failed ? null : r.detail,
        submittedAt: Number(part || r.message_created_at === null ? r.created_at : r.message_created_at),
        doneAt: failed ? Number(r.failed_at) : r.done_at === null ? null : Number(r.done_at),
      };
    });
  }

  async claimMo(accountId: number, lease: OutboxLease, limit: number): Promise<DueMo[]> {
    const rows = await this.db
      .selectFrom('outbox as o')
      .innerJoin('inbound_messages as i', 'i.id', 'o.ref_id')
      .select(['o.id as outbox_id', 'i.id', 'i.account_id', 'i.source', 'i.destination', 'i.text', 'i.received_at'])
      .where('o.kind', '=', 'smpp.mo')
      .where('o.owner_id', '=', accountId)
      .where('o.lease_until', '<=', lease.now)
      .orderBy('o.id')
      .limit(limit)
      .execute();
    return (await this.take(rows, (r) => Number(r.outbox_id), lease)).map((r) => ({
      id: Number(r.outbox_id),
      message: toInbound(r),
    }));
  }

  /**
   * Takes the rows (each outbox row's id by `idOf`) whose lease still ran out: those taken, in
   * their order (another process may have taken some meanwhile).
   */
  private async take<R>(rows: R[], idOf: (row: R) => number, lease: OutboxLease): Promise<R[]> {
    if (rows.length === 0) return [];
    const taken = await this.db
      .updateTable('outbox')
      .set({ holder: lease.holder, lease_until: lease.until })
      .where('id', 'in', rows.map(idOf))
      .where('lease_until', '<=', lease.now)
      .returning('id')
      .execute();
    const ids = new Set(taken.map((t) => Number(t.id)));
    return rows.filter((r) => ids.has(idOf(r)));
  }

  async done(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .deleteFrom('outbox')
      .where('id', 'in', [...ids])
      .execute();
  }

  async holdUntil(ids: readonly number[], holder: string, until: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('outbox')
      .set({ lease_until: until })
      .where('id', 'in', [...ids])
      .where('holder', '=', holder)
      .execute();
  }

  async release(ids: readonly number[], holder: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('outbox')
      .set({ lease_until: 0 })
      .where('id', 'in', [...ids])
      .where('holder', '=', holder)
      .execute();
  }

  async receiptsDue(smppUserId: number): Promise<number> {
    const row = await this.db
      .selectFrom('outbox as o')
      .leftJoin('messages as m', 'm.id', 'o.ref_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('o.kind', 'in', receiptKinds)
      .where('o.owner_id', '=', smppUserId)
      .where((eb) => eb.or([eb('o.failed_at', 'is not', null), eb('m.state', 'in', finalStates)]))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async removeBefore(kinds: readonly OutboxKind[], before: number): Promise<number> {
    if (kinds.length === 0) return 0;
    const gone = await this.db
      .deleteFrom('outbox')
      .where('kind', 'in', [...kinds])
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  }
}
