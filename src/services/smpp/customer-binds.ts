/**
 * The binds of the customers' SMPP users across the cluster (docs/smpp.md, "Customers over
 * SMPP"): a user's max binds count the binds of every process, each a row in the store with a
 * lease that its process renews every third of it; a process that died stops counting when
 * its leases run out.
 */
import type { SmppBind, SmppBindStore } from '../../ports/smpp-binds.js';

export type { SmppBind };

export class CustomerBinds {
  constructor(private readonly store: SmppBindStore) {}

  /** Takes a place for the bind, leased until `expiresAt`, if its user holds fewer than `maxBinds` live ones; false when it holds them. */
  take(bind: SmppBind, maxBinds: number, now: number, expiresAt: number): Promise<boolean> {
    return this.store.take(bind, maxBinds, now, expiresAt);
  }

  /** Moves the leases of these binds (held by this process) on to `expiresAt`; every lease run out by `now` goes. */
  renew(sessionIds: readonly string[], now: number, expiresAt: number): Promise<void> {
    return this.store.renew(sessionIds, now, expiresAt);
  }

  /** The sessions ended: their places are free at once. */
  release(sessionIds: readonly string[]): Promise<void> {
    return this.store.release(sessionIds);
  }

  /** Every live bind of the cluster, by system_id then time. */
  live(now: number): Promise<SmppBind[]> {
    return this.store.live(now);
  }
}
