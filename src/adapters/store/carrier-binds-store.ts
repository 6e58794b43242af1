/** The binds of the live carrier's connections across the cluster (src/ports/carrier-binds.ts, migration 0034): numbered places of the lease part (leases.ts), and the shared rate cuts. */
import type { CarrierBindLease, CarrierBinds, RateCut } from '../../ports/carrier-binds.js';
import { LeasePart } from './leases.js';
import type { LeaseTable } from './leases.js';

export class SqlCarrierBinds extends LeasePart implements CarrierBinds {
  protected readonly leases: LeaseTable = {
    table: 'carrier_binds',
    group: 'connection',
    place: 'slot',
    holder: 'owner',
  };

  take(connection: string, maxBinds: number, owner: string, now: number, expiresAt: number): Promise<number | null> {
    return this.takeNumbered(connection, maxBinds, owner, now, expiresAt);
  }

  async renew(connection: string, slot: number, owner: string, now: number, expiresAt: number): Promise<boolean> {
    return (await this.renewLeases({ places: [slot], group: connection, holder: owner }, expiresAt, now)) === 1;
  }

  async release(connection: string, slot: number, owner: string): Promise<void> {
    await this.releaseLeases({ places: [slot], group: connection, holder: owner });
  }

  async live(now: number): Promise<CarrierBindLease[]> {
    const rows = await this.db
      .selectFrom('carrier_binds')
      .selectAll()
      .where('expires_at', '>', now)
      .orderBy('connection')
      .orderBy('slot')
      .execute();
    return rows.map((r) => ({
      connection: r.connection,
      slot: Number(r.slot),
      owner: r.owner,
      boundAt: Number(r.bound_at),
      expiresAt: Number(r.expires_at),
    }));
  }

  async rateCut(connection: string): Promise<RateCut | null> {
    const row = await this.db
      .selectFrom('carrier_rates')
      .select(['rate', 'cut_at'])
      .where('connection', '=', connection)
      .executeTakeFirst();
    return row ? { rate: Number(row.rate), cutAt: Number(row.cut_at) } : null;
  }

  async cutRate(connection: string, rate: number, now: number, minGapMs: number): Promise<RateCut> {
    await this.db
      .insertInto('carrier_rates')
      .values({ connection, rate, cut_at: now })
      .onConflict((oc) =>
        oc
          .column('connection')
          .doUpdateSet({ rate, cut_at: now })
          .where('carrier_rates.cut_at', '<=', now - minGapMs),
      )
      .execute();
    return (await this.rateCut(connection)) ?? { rate, cutAt: now };
  }
}
