import type { CarrierBindLease, CarrierBinds, RateCut } from '../../../ports/carrier-binds.js';
import type { SmppLog } from './smpp-link.js';
import type { SmppConnection } from './smpp-connection.js';
import { clusterRate, cutTo, cutEveryMs } from './flow-control.js';

/**
 * The carrier's binds in a cluster (docs/smpp.md, "Binds across a cluster"): a connection
 * binds in this process only while the process holds one of its `maxBinds` places in the
 * store, a row with a lease (CarrierBinds). Every third of the lease each place held is
 * renewed and each connection not held tries for one. A place whose renewal fails (the
 * store said it is no longer ours) is let go at once; one that cannot be renewed (the store
 * does not answer) is let go a quarter of the lease before it ends, so the bind is closed
 * before another process may take the place. Each bind paces its share of the connection's
 * rate: the cluster's rate after its last cut, over the binds alive.
 */

/** What a carrier in a cluster is given: the store's places, this process's name and the lease. */
export interface BindCluster {
  binds: CarrierBinds;
  /** This process, unique in the cluster (host:pid:random). */
  owner: string;
  leaseMs: number;
}

/** A connection's place held by this process. */
interface Held {
  slot: number;
  /** When the bind must be gone unless renewed (a quarter of the lease before the lease ends). */
  timer?: NodeJS.Timeout;
}

/** A bind this process holds, as the console and metrics show it. */
export interface OwnedBind {
  connection: string;
  slot: number;
}

export class BindLeases {
  private readonly held = new Map<string, Held>();
  /** Every place held in the cluster, as read at the last beat. */
  private seen: CarrierBindLease[] = [];
  private readonly cuts = new Map<string, RateCut | null>();
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly cluster: BindCluster,
    private readonly sessions: readonly SmppConnection[],
    private readonly log: SmppLog,
    /** Told after each look at the cluster's places (which connections other processes bind). */
    private readonly onSeen: () => void = () => undefined,
  ) {
    for (const s of sessions) s.waitForLease();
  }

  /** How often the places are renewed and read. */
  private get beatMs(): number {
    return Math.max(100, Math.floor(this.cluster.leaseMs / 3));
  }

  get owner(): string {
    return this.cluster.owner;
  }

  /** Takes what places it can now, then keeps them. */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.beatMs);
    this.timer.unref();
  }

  /** Closes the binds and gives their places back (the next process need not wait for the lease). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    const held = [...this.held.entries()];
    this.held.clear();
    await Promise.all(
      held.map(async ([name, h]) => {
        clearTimeout(h.timer);
        await this.session(name)?.standDown(this.cluster.leaseMs / 4);
        await this.cluster.binds.release(name, h.slot, this.owner).catch(() => undefined);
      }),
    );
  }

  /** Whether this process should take live messages: it holds a place, or nobody in the cluster does. */
  takesWork(): boolean {
    return this.held.size > 0 || this.seen.every((l) => l.owner === this.owner);
  }

  /** Whether another process holds a place of `connection` (its messages are that process's to submit). */
  heldElsewhere(connection: string): boolean {
    return !this.held.has(connection) && this.seen.some((l) => l.connection === connection && l.owner !== this.owner);
  }

  /** The places of the cluster as last read (the console's owners). */
  leases(): readonly CarrierBindLease[] {
    return this.seen;
  }

  owned(): OwnedBind[] {
    return [...this.held.entries()].map(([connection, h]) => ({ connection, slot: h.slot }));
  }

  /** The connection's rate for the whole cluster now (after its last cut). */
  rateOf(connection: string, configured: number, now = Date.now()): number {
    return clusterRate(configured, this.cuts.get(connection) ?? null, now);
  }

  /** A bind of ours was told throttled or queue full: the connection's rate is cut for the cluster. */
  throttled(connection: string, configured: number): void {
    const now = Date.now();
    const last = this.cuts.get(connection) ?? null;
    if (last !== null && now - last.cutAt < cutEveryMs) return;
    const rate = cutTo(configured, this.rateOf(connection, configured, now));
    this.cuts.set(connection, { rate, cutAt: now });
    this.cluster.binds
      .cutRate(connection, rate, now, cutEveryMs)
      .then((cut) => {
        this.cuts.set(connection, cut);
        this.share(connection);
      })
      .catch((error: unknown) =>
        this.log.warn({ connection, error: String(error) }, 'SMPP: could not record the rate cut for the cluster'),
      );
  }

  private session(name: string): SmppConnection | undefined {
    return this.sessions.find((s) => s.name === name);
  }

  private beat(): Promise<void> {
    if (this.beating || this.stopped) return this.beating ?? Promise.resolve();
    this.beating = this.renewAndTake().finally(() => (this.beating = null));
    return this.beating;
  }

  private async renewAndTake(): Promise<void> {
    const { binds, leaseMs } = this.cluster;
    const taken: SmppConnection[] = [];
    for (const s of this.sessions) {
      const started = Date.now();
      const held = this.held.get(s.name);
      try {
        if (held) {
          if (await binds.renew(s.name, held.slot, this.owner, started, started + leaseMs)) this.keep(s, held, started);
          else this.letGo(s, 'its lease was taken or ran out');
        } else {
          const slot = await binds.take(s.name, s.config.maxBinds, this.owner, started, started + leaseMs);
          if (slot !== null && !this.stopped) {
            this.keep(s, { slot }, started);
            this.log.info({ connection: s.name, slot }, 'SMPP: holds a bind of the connection for the cluster');
            taken.push(s);
          }
        }
        this.cuts.set(s.name, await binds.rateCut(s.name));
      } catch (error) {
        // The store does not answer: a place held is let go when its timer says (keep()).
        this.log.warn({ connection: s.name, error: String(error) }, 'SMPP: could not renew or take a bind lease');
      }
    }
    try {
      this.seen = await binds.live(Date.now());
    } catch {
      // The last known places stand until the store answers.
    }
    for (const s of this.sessions) this.share(s.name);
    for (const s of taken) this.standUp(s);
    this.onSeen();
  }

  /**
   * Binds a place just taken, at its share. While other processes hold places of the
   * connection, its first submit waits a beat and a quarter: until then they pace the share
   * they had before this bind, and both together would pass the connection's rate.
   */
  private standUp(s: SmppConnection): void {
    if (!this.held.has(s.name) || this.stopped) return;
    if (this.seen.some((l) => l.connection === s.name && l.owner !== this.owner))
      s.holdSubmitsUntil(Date.now() + this.beatMs * 1.25);
    s.standUp();
  }

  /** The place is ours until `renewedAt` + lease: the bind is closed a quarter of the lease before that. */
  private keep(s: SmppConnection, held: Held, renewedAt: number): void {
    clearTimeout(held.timer);
    const margin = this.cluster.leaseMs / 4;
    held.timer = setTimeout(
      () => this.letGo(s, 'its lease could not be renewed'),
      Math.max(0, renewedAt + this.cluster.leaseMs - margin - Date.now()),
    );
    held.timer.unref();
    this.held.set(s.name, held);
  }

  private letGo(s: SmppConnection, why: string): void {
    const held = this.held.get(s.name);
    if (!held) return;
    clearTimeout(held.timer);
    this.held.delete(s.name);
    this.log.warn({ connection: s.name, slot: held.slot }, `SMPP: unbinds: ${why}`);
    void s.standDown(this.cluster.leaseMs / 4);
  }

  /** This process's bind paces the cluster's rate over the binds alive. */
  private share(connection: string): void {
    const s = this.session(connection);
    if (!s) return;
    const alive = Math.max(1, this.seen.filter((l) => l.connection === connection).length);
    s.followRate(this.rateOf(connection, s.config.maxSubmitsPerSecond) / alive);
  }
}
