/** The binds of the live carrier's connections across the cluster (src/ports/carrier-binds.ts, migration 0034). */
import type { CarrierBindLease, CarrierBinds, RateCut } from '../../ports/carrier-binds.js';
import { StorePart } from './store-part.js';

export class SqlCarrierBinds extends StorePart implements CarrierBinds {
  async take(
    connection: string,
    maxBinds: number,
    owner: string,
    now: number,
    expiresAt: number,
  ): Promise<number | null> {
    for (let slot = 0; slot < maxBinds; slot++) {
      // The upsert takes the place only when nobody holds it: on PostgreSQL the conflicting
      // row is locked and its lease checked again, so of two processes one gets it.
      const row = await this.db
        .insertInto('carrier_binds')
        .values({ connection, slot, owner, bound_at: now, expires_at: expiresAt })
        .onConflict((oc) =>
          oc
            .columns(['connection', 'slot'])
            .doUpdateSet({ owner, bound_at: now, expires_at: expiresAt })
            .where('carrier_binds.expires_at', '<=', now),
        )
        .returning('slot')
        .executeTakeFirst();
      if (row) return slot;
    }
    return null;
  }

  async renew(connection: string, slot: number, owner: string, now: number, expiresAt: number): Promise<boolean> {
    const result = await this.db
      .updateTable('carrier_binds')
      .set({ expires_at: expiresAt })
      .where('connection', '=', connection)
      .where('slot', '=', slot)
      .where('owner', '=', owner)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async release(connection: string, slot: number, owner: string): Promise<void> {
    await this.db
      .deleteFrom('carrier_binds')
      .where('connection', '=', connection)
      .where('slot', '=', slot)
      .where('owner', '=', owner)
      .execute();
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
