/** The binds of customers' SMPP users across the cluster (src/ports/smpp-binds.ts, migration 0032): counted places of the lease part (leases.ts), a row each. */
import { LeasePart } from './leases.js';
import type { LeaseTable } from './leases.js';
import type { SmppBind, SmppBindStore } from '../../ports/smpp-binds.js';

export class SqlSmppBindStore extends LeasePart implements SmppBindStore {
  protected readonly leases: LeaseTable = {
    table: 'smpp_binds',
    group: 'smpp_user_id',
    place: 'session_id',
    holder: 'process',
  };

  async take(bind: SmppBind, maxBinds: number, now: number, expiresAt: number): Promise<boolean> {
    return this.transact(async (self) => {
      const db = self.db;
      // The user's row lock orders binds of one user arriving at several processes at once.
      await self.sql.forUpdate(db.selectFrom('smpp_users').select('id').where('id', '=', bind.smppUserId)).execute();
      return self.takeCounted(bind.smppUserId, maxBinds, now, () =>
        db
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
          .execute(),
      );
    });
  }

  async renew(sessionIds: readonly string[], now: number, expiresAt: number): Promise<void> {
    await this.renewLeases({ places: sessionIds }, expiresAt);
    await this.expireLeases(now);
  }

  async release(sessionIds: readonly string[]): Promise<void> {
    await this.releaseLeases({ places: sessionIds });
  }

  async live(now: number): Promise<SmppBind[]> {
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
