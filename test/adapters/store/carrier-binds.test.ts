/**
 * The live carrier's binds across the cluster (migration 0034), on both stores: places of a
 * connection taken by one process each up to maxBinds even when asked at once, renewed only
 * by their owner before their lease ends, taken by another once it ran out, given back on
 * release; and the connection's rate cuts, one per gap however many binds report one.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { FixedClock } from '../../../src/ports/clock.js';

const now = Date.UTC(2026, 10, 27, 9, 0, 0);

for (const dialect of testDialects()) {
  describeOn(dialect, `carrier binds across the cluster (${dialect.name})`, () => {
    let app: AppContainer;
    before(async () => {
      app = await openAppContainer(await dialect.location(), new FixedClock(now));
    });
    after(() => app.close());

    it('gives each place of a connection to one process, up to maxBinds, however many ask at once', async () => {
      const binds = app.store.carrierBinds;
      const owners = Array.from({ length: 6 }, (_, i) => `host:${i}`);
      const taken = await Promise.all(owners.map((o) => binds.take('op1', 2, o, now, now + 1000)));
      assert.deepEqual(taken.filter((s) => s !== null).sort(), [0, 1], JSON.stringify(taken));
      const live = await binds.live(now);
      assert.equal(live.length, 2);
      assert.equal(new Set(live.map((l) => l.owner)).size, 2);
      // Another connection has places of its own.
      assert.equal(await binds.take('op2', 1, 'host:0', now, now + 1000), 0);
      assert.equal(await binds.take('op2', 1, 'host:1', now, now + 1000), null);
    });

    it('renews only for the owner before the lease ends; a place run out goes to the next process', async () => {
      const binds = app.store.carrierBinds;
      const [first] = (await binds.live(now)).filter((l) => l.connection === 'op2');
      assert.ok(first);
      assert.equal(await binds.renew('op2', 0, 'host:9', now + 10, now + 2000), false, 'not its place');
      assert.equal(await binds.renew('op2', 0, first.owner, now + 500, now + 1500), true);
      assert.equal(await binds.take('op2', 1, 'host:9', now + 1200, now + 3000), null, 'still held after renewal');
      // Not renewed past 1500: the lease ran out, the owner can no longer renew and another takes it.
      assert.equal(await binds.renew('op2', 0, first.owner, now + 1500, now + 3000), false);
      assert.equal(await binds.take('op2', 1, 'host:9', now + 1500, now + 3000), 0);
      assert.deepEqual(
        (await binds.live(now + 1600)).filter((l) => l.connection === 'op2').map((l) => l.owner),
        ['host:9'],
      );
      await binds.release('op2', 0, 'host:9');
      assert.equal((await binds.live(now + 1600)).filter((l) => l.connection === 'op2').length, 0);
      assert.equal(await binds.take('op2', 1, 'host:8', now + 1600, now + 3000), 0);
    });

    it("keeps one rate cut per gap of the connection's, whichever bind reports it", async () => {
      const binds = app.store.carrierBinds;
      assert.equal(await binds.rateCut('op1'), null);
      const cuts = await Promise.all([10, 20, 30].map((r) => binds.cutRate('op1', r, now, 1000)));
      const kept = await binds.rateCut('op1');
      assert.ok(kept);
      assert.ok([10, 20, 30].includes(kept.rate));
      for (const c of cuts) assert.ok(c.cutAt === now);
      assert.deepEqual(await binds.cutRate('op1', 5, now + 500, 1000), kept, 'within the gap: the first cut stands');
      assert.deepEqual(await binds.cutRate('op1', 5, now + 1000, 1000), { rate: 5, cutAt: now + 1000 });
    });
  });
}
