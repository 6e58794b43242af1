/** The SMPP users of customers (src/ports/smpp-users.ts, migration 0025): one row each, with its key's hash for a bind's credentials. */
import { StorePart } from './store-part.js';
import { rowById, rowsOfAccount } from './account-rows.js';
import type { SmppUsersTable } from './schema.js';
import type { NewSmppUser, SmppCredentials, SmppUser, SmppUserStore } from '../../ports/smpp-users.js';

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

export class SqlSmppUserStore extends StorePart implements SmppUserStore {
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
    const row = await rowById(this.db, 'smpp_users', id);
    return row ? userOf(row) : null;
  }

  async users(accountId: number): Promise<SmppUser[]> {
    return (await rowsOfAccount(this.db, 'smpp_users', accountId)).map(userOf);
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
}
