/**
 * The one lease part (docs/architecture.md, Words: **lease**): places held by a process until
 * an expiry, in a table of rows, one per place held. A group (a carrier connection, a
 * customer's SMPP user) has at most `maxPlaces` of them; a place whose lease ran out is free
 * again. The carrier's binds (`carrier_binds`) and the customers' (`smpp_binds`) are two
 * tables of it, each part naming its columns (`LeaseTable`); their tables differ (no
 * migration made them one), so a place is taken one of two ways:
 *
 * - numbered (`takeNumbered`): places 0 .. maxPlaces - 1 of the group, each taken by an upsert
 *   that wins only where the lease ran out (on PostgreSQL the conflicting row is locked and
 *   its lease checked again, so of two processes one gets it);
 * - counted (`takeCounted`): a row of its own per place, counted against the group's max in
 *   the caller's transaction, after the leases of the group that ran out go.
 *
 * Then renewed (`renewLeases`), given back (`releaseLeases`), or expired (`expireLeases`) by the same statements.
 */
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { StorePart } from './store-part.js';

/** A table of leases: which columns name the group, the place in it, and the process holding it. */
export interface LeaseTable {
  table: 'carrier_binds' | 'smpp_binds';
  group: string;
  place: string;
  holder: string;
}

type Value = string | number;

/** Which places a statement touches: these places (of `group`, if given), held by `holder`, if given. */
export interface PlacesHeld {
  places: readonly Value[];
  group?: Value;
  holder?: string;
}

export abstract class LeasePart extends StorePart {
  protected abstract readonly leases: LeaseTable;

  private where(p: PlacesHeld): RawBuilder<unknown> {
    const t = this.leases;
    const parts = [sql`${sql.ref(t.place)} in (${sql.join([...p.places])})`];
    if (p.group !== undefined) parts.push(sql`${sql.ref(t.group)} = ${p.group}`);
    if (p.holder !== undefined) parts.push(sql`${sql.ref(t.holder)} = ${p.holder}`);
    return sql.join(parts, sql` and `);
  }

  /** Takes a free numbered place of `group` for `holder` until `expiresAt`: its number, or null when every place is held. */
  protected async takeNumbered(
    group: Value,
    maxPlaces: number,
    holder: string,
    now: number,
    expiresAt: number,
  ): Promise<number | null> {
    const t = this.leases;
    const columns = sql.join([sql.ref(t.group), sql.ref(t.place)]);
    for (let place = 0; place < maxPlaces; place++) {
      const taken = await sql<{ place: number }>`insert into ${sql.table(t.table)}
        (${columns}, ${sql.ref(t.holder)}, bound_at, expires_at)
        values (${group}, ${place}, ${holder}, ${now}, ${expiresAt})
        on conflict (${columns}) do update set ${sql.ref(t.holder)} = ${holder}, bound_at = ${now}, expires_at = ${expiresAt}
        where ${sql.ref(`${t.table}.expires_at`)} <= ${now}
        returning ${sql.ref(t.place)}`.execute(this.db);
      if (taken.rows.length > 0) return place;
    }
    return null;
  }

  /**
   * In the caller's transaction (ordered by its lock on the group): the group's leases that
   * ran out by `now` go, and `insert` writes the new place's row if the group holds fewer
   * than `maxPlaces`. False when it holds them.
   */
  protected async takeCounted(
    group: Value,
    maxPlaces: number,
    now: number,
    insert: () => Promise<unknown>,
  ): Promise<boolean> {
    const t = this.leases;
    await this.expireLeases(now, group);
    const held = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(t.table)}
      where ${sql.ref(t.group)} = ${group}`.execute(this.db);
    if (Number(held.rows[0]?.n ?? 0) >= maxPlaces) return false;
    await insert();
    return true;
  }

  /** Moves the leases of these places on to `expiresAt` (only those live at `liveAt`, if given); answers how many moved. */
  protected async renewLeases(held: PlacesHeld, expiresAt: number, liveAt?: number): Promise<number> {
    if (held.places.length === 0) return 0;
    const t = this.leases;
    const live = liveAt === undefined ? sql`` : sql` and expires_at > ${liveAt}`;
    const moved = await sql`update ${sql.table(t.table)} set expires_at = ${expiresAt}
      where ${this.where(held)}${live} returning ${sql.ref(t.place)}`.execute(this.db);
    return moved.rows.length;
  }

  /** Gives these places back at once. */
  protected async releaseLeases(held: PlacesHeld): Promise<void> {
    if (held.places.length === 0) return;
    await sql`delete from ${sql.table(this.leases.table)} where ${this.where(held)}`.execute(this.db);
  }

  /** Every lease (of `group`, if given) that ran out by `now` goes. */
  protected async expireLeases(now: number, group?: Value): Promise<void> {
    const t = this.leases;
    const of = group === undefined ? sql`` : sql`${sql.ref(t.group)} = ${group} and `;
    await sql`delete from ${sql.table(t.table)} where ${of}expires_at <= ${now}`.execute(this.db);
  }
}
