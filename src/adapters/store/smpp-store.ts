import { StorePart } from './store-part.js';
import type { SmppUsersTable } from './schema.js';
import type { FinalState } from '../../domain/delivery-state.js';
import type { NewSmppUser, OwedReceipt, SmppCredentials, SmppStore, SmppUser } from '../../ports/smpp-store.js';

type UserRow = Omit<SmppUsersTable, 'id'> & { id: number };

function userOf(r: UserRow): SmppUser {
  return {
    id: Number(r.id),
    keyId: r.key_id,
    accountId: r.account_id,
    systemId: r.system_id,
    maxBinds: r.max_binds,
    windowSize: r.window_size,
    maxSubmitsPerSecond: r.max_submits_per_second,
    disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
    createdAt: Number(r.created_at),
  };
}

const finalStates: readonly FinalState[] = ['delivered', 'failed', 'expired'];

export class SqlSmppStore extends StorePart implements SmppStore {
  async createUser(u: NewSmppUser, now: number): Promise<SmppUser> {
    const row = await this.db
      .insertInto('smpp_users')
      .values({
        key_id: u.keyId,
        account_id: u.accountId,
        system_id: u.systemId,
        password_hash: u.passwordHash,
        max_binds: u.maxBinds,
        window_size: u.windowSize,
        max_submits_per_second: u.maxSubmitsPerSecond,
        disabled_at: null,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return userOf(row);
  }

  async credentials(systemId: string): Promise<SmppCredentials | null> {
    const row = await this.db
      .selectFrom('smpp_users as u')
      .innerJoin('api_keys as k', 'k.id', 'u.key_id')
      .selectAll('u')
      .select('k.key_hash')
      .where('u.system_id', '=', systemId)
      .executeTakeFirst();
    return row ? { user: userOf(row), passwordHash: row.password_hash, keyHash: row.key_hash } : null;
  }

  async getUser(id: number): Promise<SmppUser | null> {
    const row = await this.db.selectFrom('smpp_users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? userOf(row) : null;
  }

  async users(accountId: number): Promise<SmppUser[]> {
    const rows = await this.db
      .selectFrom('smpp_users')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map(userOf);
  }

  async disableUser(id: number, now: number): Promise<SmppUser | null> {
    await this.db
      .updateTable('smpp_users')
      .set({ disabled_at: now })
      .where('id', '=', id)
      .where('disabled_at', 'is', null)
      .execute();
    return this.getUser(id);
  }

  async owe(r: { messageId: number; smppUserId: number; sourceAddr: string }, now: number): Promise<void> {
    await this.db
      .insertInto('smpp_receipts')
      .values({ message_id: r.messageId, smpp_user_id: r.smppUserId, source_addr: r.sourceAddr, created_at: now })
      .onConflict((oc) => oc.column('message_id').doNothing())
      .execute();
  }

  async owed(smppUserId: number, limit: number): Promise<OwedReceipt[]> {
    const rows = await this.db
      .selectFrom('smpp_receipts as r')
      .innerJoin('messages as m', 'm.id', 'r.message_id')
      .select(['r.message_id', 'r.source_addr', 'm.recipient', 'm.state', 'm.detail', 'm.created_at', 'm.done_at'])
      .where('r.smpp_user_id', '=', smppUserId)
      .where('r.sent_at', 'is', null)
      .where('m.state', 'in', finalStates)
      .orderBy('r.message_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      messageId: Number(r.message_id),
      sourceAddr: r.source_addr,
      recipient: r.recipient,
      state: r.state as FinalState,
      detail: r.detail,
      submittedAt: Number(r.created_at),
      doneAt: r.done_at === null ? null : Number(r.done_at),
    }));
  }

  async acknowledged(messageIds: readonly number[], now: number): Promise<void> {
    if (messageIds.length === 0) return;
    await this.db
      .updateTable('smpp_receipts')
      .set({ sent_at: now })
      .where('message_id', 'in', [...messageIds])
      .execute();
  }

  async removeBefore(before: number): Promise<number> {
    const result = await this.db.deleteFrom('smpp_receipts').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
