/** Sender IDs of accounts, and the approval check of every send (SQLite's sender cache in front). */
import type { Selectable } from 'kysely';
import type { SenderIdsTable } from './schema.js';
import type { SenderId, SenderIdStore } from '../../ports/sender-ids.js';
import { StorePart } from './store-part.js';
import { preparedQuery } from './prepared-query.js';
import { rowById, rowsOfAccount } from './account-rows.js';

export function toSenderId(row: Selectable<SenderIdsTable>): SenderId {
  return {
    id: row.id,
    accountId: row.account_id,
    title: row.title,
    status: row.status,
    createdAt: Number(row.created_at),
  };
}

const senderLookup = preparedQuery(
  (db, p: { accountId: number; title: string }) =>
    db
      .selectFrom('sender_ids')
      .select('id')
      .where('account_id', '=', p.accountId)
      .where('title', '=', p.title)
      .where('status', '=', 'approved')
      .limit(1),
  ['accountId', 'title'],
);

export class SqlSenderIdStore extends StorePart implements SenderIdStore {
  async addSenderId(
    accountId: number,
    title: string,
    status: SenderId['status'],
    now: number,
  ): Promise<SenderId | null> {
    // The unique index of migration 0012 decides, so two adds at once cannot both succeed.
    const row = await this.db
      .insertInto('sender_ids')
      .values({ account_id: accountId, title, status, created_at: now })
      .onConflict((c) => c.columns(['account_id', 'title']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) this.context.caches?.sendersChanged();
    return row ? toSenderId(row) : null;
  }

  async getSenderId(id: number): Promise<SenderId | null> {
    const row = await rowById(this.db, 'sender_ids', id);
    return row ? toSenderId(row) : null;
  }

  async listOf(accountId: number): Promise<SenderId[]> {
    return (await rowsOfAccount(this.db, 'sender_ids', accountId)).map(toSenderId);
  }

  async removeSenderId(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('sender_ids').where('id', '=', id).executeTakeFirst();
    const removed = Number(result.numDeletedRows) > 0;
    if (removed) this.context.caches?.sendersChanged();
    return removed;
  }

  async approvedSenderIds(accountId: number): Promise<SenderId[]> {
    const rows = await this.db
      .selectFrom('sender_ids')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'approved')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toSenderId);
  }

  async hasApprovedSender(accountId: number, title: string): Promise<boolean> {
    const load = async (): Promise<boolean> =>
      (await this.db.executeQuery(senderLookup(this.db, { accountId, title }))).rows.length > 0;
    // Refusals are remembered too: the cache is bounded, and emptied by the same signals.
    const caches = this.readCaches;
    return caches ? (await caches.senders.lookup(`${accountId}:${title}`, load)) === true : load();
  }
}
