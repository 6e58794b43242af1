/**
 * The SMPP carrier's binds in a cluster (BindLeases), two carriers against one simulator
 * sharing the places of one store (an in-memory CarrierBinds with the store's rules): one
 * binds, the other takes no work; the holder cut off from the store unbinds by itself
 * before its lease ends, so the SMSC never sees two binds, and the other takes the place.
 * A throttle seen by one bind cuts the connection's rate for both.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CarrierBindLease, CarrierBinds, RateCut } from '../../../../src/ports/carrier-binds.js';
import { SmppCarrier } from '../../../../src/adapters/carriers/smpp/smpp-carrier.js';
import type { SmscSimulator } from '../../../../src/adapters/carriers/smpp/smsc-simulator.js';
import { carrierConfig, RecordingListener, startSimulator } from './smpp-harness.js';
import { waitFor } from '../../../helpers/wait-for.js';

/** The store's rules for the places, in memory. */
class MemoryBinds implements CarrierBinds {
  private readonly rows = new Map<string, CarrierBindLease>();
  private cut: RateCut | null = null;

  async take(connection: string, maxBinds: number, owner: string, now: number, expiresAt: number) {
    for (let slot = 0; slot < maxBinds; slot++) {
      const key = `${connection}/${slot}`;
      const row = this.rows.get(key);
      if (row && row.expiresAt > now) continue;
      this.rows.set(key, { connection, slot, owner, boundAt: now, expiresAt });
      return slot;
    }
    return null;
  }

  async renew(connection: string, slot: number, owner: string, now: number, expiresAt: number) {
    const row = this.rows.get(`${connection}/${slot}`);
    if (!row || row.owner !== owner || row.expiresAt <= now) return false;
    row.expiresAt = expiresAt;
    return true;
  }

  async release(connection: string, slot: number, owner: string) {
    const key = `${connection}/${slot}`;
    if (this.rows.get(key)?.owner === owner) this.rows.delete(key);
  }

  async live(now: number) {
    return [...this.rows.values()].filter((r) => r.expiresAt > now).map((r) => ({ ...r }));
  }

  async rateCut() {
    return this.cut;
  }

  async cutRate(_connection: string, rate: number, now: number, minGapMs: number) {
    if (this.cut === null || this.cut.cutAt <= now - minGapMs) this.cut = { rate, cutAt: now };
    return this.cut;
  }
}

/** One process's view of the store: every call fails while `down`. */
function reachable(binds: CarrierBinds): { binds: CarrierBinds; down: boolean } {
  const view = { down: false, binds: {} as CarrierBinds };
  const guard =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (view.down) throw new Error('the store does not answer');
      return f(...args);
    };
  view.binds = {
    take: guard(binds.take.bind(binds)),
    renew: guard(binds.renew.bind(binds)),
    release: guard(binds.release.bind(binds)),
    live: guard(binds.live.bind(binds)),
    rateCut: guard(binds.rateCut.bind(binds)),
    cutRate: guard(binds.cutRate.bind(binds)),
  };
  return view;
}

describe('SMPP carrier binds shared by a cluster', () => {
  let sim: SmscSimulator;
  const carriers: SmppCarrier[] = [];
  after(async () => {
    for (const c of carriers) await c.stop();
    await sim?.stop();
  });

  it('binds in one process; the holder cut off from the store unbinds before another takes the place', async () => {
    const started = await startSimulator();
    sim = started.sim;
    const store = new MemoryBinds();
    const views = [reachable(store), reachable(store)];
    const config = carrierConfig([started.port], {}, { maxBinds: 1, maxSubmitsPerSecond: 100 });
    for (const [i, view] of views.entries()) {
      const carrier = new SmppCarrier(config, { cluster: { binds: view.binds, owner: `p${i}`, leaseMs: 1000 } });
      carriers.push(carrier);
      await carrier.start(new RecordingListener());
    }
    const holder = await waitFor('a bound connection', () => carriers.find((c) => c.status()[0]?.bound));
    const other = carriers.find((c) => c !== holder) as SmppCarrier;
    assert.equal(holder.takesWork(), true);
    await waitFor('the other to see the place held', () => other.takesWork() === false);
    assert.deepEqual(
      holder.status()[0]?.binds?.map((b) => b.mine),
      [true],
    );
    const accepted = await holder.submit({ messageId: 1, to: '905321112233', from: 'ACME', text: 'hi', lang: 0 });
    assert.equal(accepted.kind, 'accepted');
    const refused = await other.submit({ messageId: 2, to: '905321112234', from: 'ACME', text: 'hi', lang: 0 });
    assert.equal(refused.kind, 'retry', 'no bind here: the message goes back to the queue');

    (views[carriers.indexOf(holder)] as { down: boolean }).down = true;
    await waitFor('the other process to bind', () => other.status()[0]?.bound === true);
    await waitFor('the holder unbound', () => holder.status()[0]?.bound === false);
    assert.equal(sim.stats.peakBound, 1, 'never two binds at once');
    assert.equal(sim.stats.binds, 2);
    assert.equal(other.takesWork(), true);
  });

  it('a bind new to the cluster submits only once the bind already there paces its share', async () => {
    const started = await startSimulator();
    const store = new MemoryBinds();
    const config = carrierConfig([started.port], {}, { maxBinds: 2, maxSubmitsPerSecond: 100 });
    const options = (owner: string) => ({ cluster: { binds: store, owner, leaseMs: 3000 } });
    const first = new SmppCarrier(config, options('r0'));
    const second = new SmppCarrier(config, options('r1'));
    try {
      await first.start(new RecordingListener());
      await waitFor('the first bound', () => first.status()[0]?.bound === true);
      assert.equal(first.status()[0]?.rate, 100, 'alone: the whole rate');
      const alone = await first.submit({ messageId: 4, to: '905321112236', from: 'ACME', text: 'hi', lang: 0 });
      assert.equal(alone.kind, 'accepted', 'alone, nothing to wait for');
      await second.start(new RecordingListener());
      await waitFor('the second bound', () => second.status()[0]?.bound === true);
      const [place] = (await store.live(Date.now())).filter((l) => l.owner === 'r1');
      const joined = await second.submit({ messageId: 5, to: '905321112237', from: 'ACME', text: 'hi', lang: 0 });
      assert.equal(joined.kind, 'accepted');
      // The first bind's beat (every second) has lowered it to its share before the newcomer's first submit.
      assert.equal(first.status()[0]?.rate, 50, "the first bind paces its share when the second's first submit goes");
      const at = started.sim.received.find((r) => r.destination === '905321112237')?.at ?? 0;
      assert.ok(
        place && at >= place.boundAt + 1000,
        `submitted ${at - (place?.boundAt ?? 0)} ms after the place was taken`,
      );
    } finally {
      await first.stop();
      await second.stop();
      await started.sim.stop();
    }
  });

  it("a throttle seen by one bind cuts the connection's rate for the cluster, and each bind paces its share", async () => {
    const throttling = await startSimulator({ throttleShare: 1 });
    const store = new MemoryBinds();
    const config = carrierConfig([throttling.port], {}, { maxBinds: 2, maxSubmitsPerSecond: 100 });
    const pair: SmppCarrier[] = [];
    try {
      for (const owner of ['q0', 'q1']) {
        const carrier = new SmppCarrier(config, { cluster: { binds: store, owner, leaseMs: 1000 } });
        pair.push(carrier);
        await carrier.start(new RecordingListener());
      }
      const [a, b] = pair as [SmppCarrier, SmppCarrier];
      await waitFor('both bound, each seeing two binds', () =>
        pair.every((c) => c.status()[0]?.bound === true && c.status()[0]?.binds?.length === 2),
      );
      // Two binds of a connection at 100/s: each paces 50/s.
      assert.equal(a.status()[0]?.rate, 50);
      const refused = await a.submit({ messageId: 3, to: '905321112235', from: 'ACME', text: 'hi', lang: 0 });
      assert.equal(refused.kind, 'retry');
      const cut = await waitFor('the cut in the store', () => store.rateCut());
      assert.ok(cut.rate < 100, JSON.stringify(cut));
      // The other bind never saw a refusal: it learns the cut from the store.
      await waitFor('the other bind to follow the cut', () => (b.status()[0]?.clusterRate ?? 100) < 100);
      assert.ok((b.status()[0]?.rate ?? 100) < 50);
    } finally {
      for (const c of pair) await c.stop();
      await throttling.sim.stop();
    }
  });
});
