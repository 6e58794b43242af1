/**
 * A pool's knowledge that PostgreSQL has fallen silent (a route or proxy that stops
 * forwarding, closing nothing). Told by the first statement the server did not answer in
 * its bound, or the first new connection that could not be made in its bound: from then
 * on every connection asked for is refused at once (`StoreUnavailable`, answered 503 SRV-ERR),
 * so a request never waits a second bound behind the first, and no work queued meanwhile
 * runs when the route comes back after its caller was answered. A probe (a new connection
 * and `select 1`, each in its own bound) runs every `probeEveryMs` until one is answered;
 * then connections are given again. The connections opened before the silence are ended
 * as they come back to the pool, never reused: they may be the ones the route lost.
 */
import type pg from 'pg';
import { StoreUnavailable } from '../../../util/store-faults.js';

export interface SilenceEvents {
  /** The store fell silent: connections are refused from now until it answers again. */
  silent?: () => void;
  /** It answered a probe, `silentMs` after it fell silent. */
  heard?: (silentMs: number) => void;
}

/** The pause between two probes of a silent store. */
export const probeEveryMs = 250;

export class Silence {
  /** Bumped each time the store falls silent: connections of an older one are ended. */
  private generation = 0;
  private readonly born = new WeakMap<object, number>();
  private since: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly events: SilenceEvents,
  ) {
    pool.on('connect', (client) => this.born.set(client, this.generation));
  }

  /** A connection for a statement or transaction: refused at once while the store is silent. */
  async checkout(): Promise<pg.PoolClient> {
    this.refuseWhileSilent();
    return this.fresh(false);
  }

  /** A statement was not answered in its bound (the client's time-out): the store is silent. */
  heardNothing(): void {
    if (this.since !== null || this.stopped) return;
    this.since = Date.now();
    this.generation += 1;
    this.events.silent?.();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private refuseWhileSilent(): void {
    if (this.since === null) return;
    throw new StoreUnavailable(
      `the store has not answered since ${new Date(this.since).toISOString()}: no statement is sent until it answers again`,
    );
  }

  /** A connection made since the store last fell silent; older ones are ended on the way. */
  private async fresh(probe: boolean): Promise<pg.PoolClient> {
    for (;;) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        // A new connection not made in its bound (not a wait for a busy pool's connection).
        if (error instanceof Error && error.message.includes('due to connection timeout')) this.heardNothing();
        throw new StoreUnavailable('no connection to the store', { cause: error });
      }
      if (this.born.get(client) === this.generation) return client;
      client.release(new Error('opened before the store fell silent'));
      if (!probe) this.refuseWhileSilent();
    }
  }

  private schedule(): void {
    if (this.stopped || this.since === null || this.timer) return;
    this.timer = setTimeout(() => void this.probe(), probeEveryMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    this.timer = null;
    let client: pg.PoolClient | null = null;
    try {
      client = await this.fresh(true);
      await client.query('select 1');
      client.release();
      client = null;
      const since = this.since;
      this.since = null;
      if (since !== null) this.events.heard?.(Date.now() - since);
    } catch (error) {
      client?.release(error instanceof Error ? error : new Error('the probe failed'));
      this.schedule();
    }
  }
}
