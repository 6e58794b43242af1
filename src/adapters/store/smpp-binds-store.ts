/** The binds of customers' SMPP users across the cluster (src/ports/smpp-binds.ts): a row each, with a lease. */
import { StorePart } from './store-part.js';
import type { SmppBind, SmppBindStore } from '../../ports/smpp-binds.js';

export class SqlSmppBindStore extends StorePart implements SmppBindStore {
  async claimBind(bind: SmppBind, maxBinds: number, now: number, expiresAt: number): Promise<boolean> {
    return this.transact(async (self) => {
      const db = self.db;
      // The user's row lock orders binds of one user arriving at several processes at once.
      await self.sql.forUpdate(db.selectFrom('smpp_users').select('id').where('id', '=', bind.smppUserId)).execute();
      await db
        .deleteFrom('smpp_binds')
        .where('smpp_user_id', '=', bind.smppUserId)
        .where('expires_at', '<=', now)
        .execute();
      const live = await db
        .selectFrom('smpp_binds')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('smpp_user_id', '=', bind.smppUserId)
        .executeTakeFirst();
      if (Number(live?.n ?? 0) >= maxBinds) return false;
      await db
        .insertInto('smpp_binds')
        .values({
          session_id: bind.sessionId,
          smpp_user_id: bind.smppUserId,
          account_id: bind.accountId,
          system_id: bind.systemId,
          process: bind.process,
          peer: bind.peer,
          bind_type: bind.bindType,
          bound_at: bind.boundAt,
          expires_at: expiresAt,
        })
        .execute();
      return true;
    });
  }

  async renewBinds(sessionIds: readonly string[], now: number, expiresAt: number): Promise<void> {
    if (sessionIds.length > 0)
      await this.db
        .updateTable('smpp_binds')
        .set({ expires_at: expiresAt })
        .where('session_id', 'in', [...sessionIds])
        .execute();
    await this.db.deleteFrom('smpp_binds').where('expires_at', '<=', now).execute();
  }

  async releaseBinds(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.db
      .deleteFrom('smpp_binds')
      .where('session_id', 'in', [...sessionIds])
      .execute();
  }

  async liveBinds(now: number): Promise<SmppBind[]> {
    const rows = await this.db
      .selectFrom('smpp_binds')
      .selectAll()
      .where('expires_at', '>', now)
      .orderBy('system_id')
      .orderBy('bound_at')
      .limit(10_000)
      .execute();
    return rows.map((r) => ({
      sessionId: r.session_id,
      smppUserId: r.smpp_user_id,
      accountId: r.account_id,
      systemId: r.system_id,
      process: r.process,
      peer: r.peer,
      bindType: r.bind_type === 'transmitter' || r.bind_type === 'receiver' ? r.bind_type : 'transceiver',
      boundAt: Number(r.bound_at),
    }));
  }
}
