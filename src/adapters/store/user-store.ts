/**
 * The panel's tables (migration 0014) on either dialect: see src/ports/user-store.ts.
 * One file, long because users, sessions, set-password links and sign-in reservations are
 * one port (`UserStore`) whose methods change them together in one transaction.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import { StorePart } from './store-part.js';
import { rowById, rowsOfAccount } from './account-rows.js';
import { toSenderId } from './sender-ids-store.js';
import type { PanelUsersTable } from './schema-panel.js';
import type { PanelSession, PanelUser, UserStore } from '../../ports/user-store.js';
import type { SenderId } from '../../ports/sender-ids.js';

function toUser(row: Selectable<PanelUsersTable>): PanelUser {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    passwordHash: row.password_hash,
    status: row.status,
    createdAt: Number(row.created_at),
    passwordChangedAt: row.password_changed_at === null ? null : Number(row.password_changed_at),
  };
}

export class SqlUserStore extends StorePart implements UserStore {
  async createUser(
    input: { accountId: number | null; email: string; passwordHash: string | null },
    now: number,
  ): Promise<PanelUser | null> {
    const row = await this.db
      .insertInto('panel_users')
      .values({
        account_id: input.accountId,
        email: input.email.toLowerCase(),
        password_hash: input.passwordHash,
        status: 'active',
        created_at: now,
        password_changed_at: input.passwordHash === null ? null : now,
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async getUser(id: number): Promise<PanelUser | null> {
    const row = await rowById(this.db, 'panel_users', id);
    return row ? toUser(row) : null;
  }

  async findUserByEmail(email: string): Promise<PanelUser | null> {
    const row = await this.db
      .selectFrom('panel_users')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async usersOf(accountId: number): Promise<PanelUser[]> {
    return (await rowsOfAccount(this.db, 'panel_users', accountId)).map(toUser);
  }

  async setPasswordHash(userId: number, hash: string | null, now: number): Promise<void> {
    await this.db
      .updateTable('panel_users')
      .set({ password_hash: hash, password_changed_at: now })
      .where('id', '=', userId)
      .execute();
  }

  async setUserStatus(userId: number, status: PanelUser['status']): Promise<PanelUser | null> {
    const row = await this.db
      .updateTable('panel_users')
      .set({ status })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async createSession(s: PanelSession): Promise<void> {
    await this.db
      .insertInto('panel_sessions')
      .values({ token_hash: s.tokenHash, user_id: s.userId, created_at: s.createdAt, last_seen_at: s.lastSeenAt })
      .execute();
  }

  async findSession(tokenHash: string): Promise<PanelSession | null> {
    const row = await this.db
      .selectFrom('panel_sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row
      ? {
          tokenHash: row.token_hash,
          userId: row.user_id,
          createdAt: Number(row.created_at),
          lastSeenAt: Number(row.last_seen_at),
        }
      : null;
  }

  async touchSession(tokenHash: string, now: number): Promise<void> {
    await this.db
      .updateTable('panel_sessions')
      .set({ last_seen_at: now })
      .where('token_hash', '=', tokenHash)
      .execute();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('panel_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async deleteSessionsOf(userId: number): Promise<number> {
    const result = await this.db.deleteFrom('panel_sessions').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async signInFailures(subject: string, now: number, windowMs: number): Promise<number> {
    const row = await this.db
      .selectFrom('panel_sign_in_failures')
      .selectAll()
      .where('subject', '=', subject)
      .executeTakeFirst();
    if (!row || Number(row.window_start) <= now - windowMs) return 0;
    return row.failures;
  }

  async reserveSignInAttempt(subject: string, now: number, windowMs: number, limit: number): Promise<number | null> {
    // One statement, so concurrent attempts (in this process or another) each see the others'
    // reservations: the upsert's WHERE leaves the row alone once the window holds `limit`.
    const expired = sql<boolean>`panel_sign_in_failures.window_start <= ${now - windowMs}`;
    const row = await this.db
      .insertInto('panel_sign_in_failures')
      .values({ subject, window_start: now, failures: 1 })
      .onConflict((oc) =>
        oc
          .column('subject')
          .doUpdateSet({
            failures: sql<number>`case when ${expired} then 1 else panel_sign_in_failures.failures + 1 end`,
            window_start: sql<number>`case when ${expired} then ${now} else panel_sign_in_failures.window_start end`,
          })
          .where(sql<boolean>`${expired} or panel_sign_in_failures.failures < ${limit}`),
      )
      .returning('failures')
      .executeTakeFirst();
    return row === undefined ? null : Number(row.failures);
  }

  async releaseSignInAttempt(subject: string): Promise<void> {
    await this.db
      .updateTable('panel_sign_in_failures')
      .set({ failures: sql<number>`failures - 1` })
      .where('subject', '=', subject)
      .where('failures', '>', 0)
      .execute();
  }

  async clearSignInFailures(subject: string): Promise<void> {
    await this.db.deleteFrom('panel_sign_in_failures').where('subject', '=', subject).execute();
  }

  async createPasswordToken(tokenHash: string, userId: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('panel_password_tokens')
      .values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt, used_at: null })
      .execute();
  }

  async usePasswordToken(tokenHash: string, now: number): Promise<number | null> {
    const row = await this.db
      .updateTable('panel_password_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async endPasswordTokensOf(userId: number, now: number): Promise<number> {
    const result = await this.db
      .updateTable('panel_password_tokens')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async peekPasswordToken(tokenHash: string, now: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('panel_password_tokens')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async reviewSenderId(
    id: number,
    status: SenderId['status'],
    reason: string | null,
    now: number,
    onlyFrom?: SenderId['status'],
  ): Promise<SenderId | null> {
    // The status and its reason change together.
    return this.transact(async (self) => {
      const row = await self.db
        .updateTable('sender_ids')
        .set({ status })
        .where('id', '=', id)
        .$if(onlyFrom !== undefined, (q) => q.where('status', '=', onlyFrom ?? 'pending'))
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      // The send path's approval check is cached: an approval must be seen by the next send.
      self.context.caches?.sendersChanged();
      await self.db.deleteFrom('sender_id_reviews').where('sender_id', '=', id).execute();
      if (reason !== null)
        await self.db.insertInto('sender_id_reviews').values({ sender_id: id, reason, decided_at: now }).execute();
      return toSenderId(row);
    });
  }

  async rejectionReasons(accountId: number): Promise<Map<number, string>> {
    const rows = await this.db
      .selectFrom('sender_id_reviews as r')
      .innerJoin('sender_ids as s', 's.id', 'r.sender_id')
      .select(['r.sender_id', 'r.reason'])
      .where('s.account_id', '=', accountId)
      .execute();
    return new Map(rows.map((r) => [r.sender_id, r.reason]));
  }

  async keyIdsOf(accountId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async markKeysUsed(entries: readonly { keyId: number; at: number }[]): Promise<void> {
    for (const { keyId, at } of entries) {
      await this.db
        .insertInto('key_last_used')
        .values({ key_id: keyId, used_at: at })
        .onConflict((oc) =>
          oc.column('key_id').doUpdateSet({
            used_at: sql<number>`case when key_last_used.used_at < ${at} then ${at} else key_last_used.used_at end`,
          }),
        )
        .execute();
    }
  }

  async lastUsed(keyIds: readonly number[]): Promise<Map<number, number>> {
    if (keyIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('key_last_used')
      .selectAll()
      .where('key_id', 'in', [...keyIds])
      .execute();
    return new Map(rows.map((r) => [r.key_id, Number(r.used_at)]));
  }
}
