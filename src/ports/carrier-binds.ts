/**
 * The binds of the live carrier's connections, shared by the processes of one store
 * (docs/smpp.md, "Binds across a cluster"). Each connection has `maxBinds` places; a process
 * binds to the SMSC only while it holds a place, whose lease it renews every third of the
 * lease. A process that stops renewing (killed, frozen, cut off from the store) loses its
 * place when the lease runs out, and another process takes it.
 */

/** One place of a connection held by a process until `expiresAt` (epoch ms). */
export interface CarrierBindLease {
  connection: string;
  slot: number;
  /** The process holding it (host:pid:random). */
  owner: string;
  boundAt: number;
  expiresAt: number;
}

/** A connection's last rate cut for the cluster (AIMD): cut to `rate` submits per second at `cutAt`. */
export interface RateCut {
  rate: number;
  cutAt: number;
}

export interface CarrierBinds {
  /**
   * Takes a free place of `connection` (0 .. maxBinds - 1; one whose lease ran out by `now`
   * is free) for `owner` until `expiresAt`. Returns its slot, or null when every place is held.
   */
  take(connection: string, maxBinds: number, owner: string, now: number, expiresAt: number): Promise<number | null>;
  /** Moves `owner`'s lease of the place on to `expiresAt`; false when it ran out by `now` or is no longer `owner`'s. */
  renew(connection: string, slot: number, owner: string, now: number, expiresAt: number): Promise<boolean>;
  /** Gives the place back at once (the bind ended). */
  release(connection: string, slot: number, owner: string): Promise<void>;
  /** Every place held at `now`, of every connection. */
  live(now: number): Promise<CarrierBindLease[]>;
  /** The connection's last rate cut; null when it was never cut. */
  rateCut(connection: string): Promise<RateCut | null>;
  /**
   * Records a cut of the connection's rate to `rate` at `now`, unless the last cut came less
   * than `minGapMs` before (a window of refusals seen by several binds is one signal). Returns
   * the cut in force afterwards.
   */
  cutRate(connection: string, rate: number, now: number, minGapMs: number): Promise<RateCut>;
}
