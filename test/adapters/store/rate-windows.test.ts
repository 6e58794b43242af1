/**
 * The per-key request rate counted in PostgreSQL (issue 24): every request of a window gets
 * its own place in it, however they are batched and from however many stores (processes);
 * a window that ended starts again at one; old windows are swept.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection, storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import type { RateTally } from '../../../src/ports/rate-counter.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { pause } from '../../helpers/wait-for.js';

// PostgreSQL only (SQLite counts the rate in memory); describeOn says why it is skipped without one.
for (const postgres of testDialects().filter((d) => d.name === 'postgres')) {
  describeOn(postgres, 'rate windows (postgres)', () => {
    let one: SqlStore;
    let other: SqlStore;
    let a: RateTally & { sweep(): Promise<number> };
    let b: RateTally;

    before(async () => {
      const location = await postgres.location();
      const handle = openConnection(location);
      await migrate(handle);
      one = storeOn(handle);
      // A second pool on the same schema: another process.
      other = storeOn(openConnection(location));
      a = one.rates.counter();
      b = other.rates.counter();
    });
    after(async () => {
      await one.close();
      await other.close();
    });

    it('gives every request of a window its own place, across batches and stores', async () => {
      const hits = await Promise.all([
        ...Array.from({ length: 30 }, () => a.add('k1', 5000, 1)),
        ...Array.from({ length: 30 }, () => b.add('k1', 5000, 1)),
      ]);
      assert.deepEqual(
        hits.map((h) => h.current).sort((x, y) => x - y),
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
      for (const h of hits) assert.ok(h.ttlMs > 0 && h.ttlMs <= 5000, `ttl ${h.ttlMs}`);
      assert.equal((await a.add('k2', 5000, 1)).current, 1, 'another key has a window of its own');
      assert.equal((await b.add('k1', 5000, 1)).current, 61);
    });

    it('adds several requests at once (a lease), each addition answered with the count after it', async () => {
      assert.equal((await a.add('lease', 5000, 5)).current, 5);
      // One batch of three additions: each gets the count after its own.
      const batch = await Promise.all([a.add('lease', 5000, 2), a.add('lease', 5000, 1), a.add('lease', 5000, 10)]);
      assert.deepEqual(
        batch.map((c) => c.current),
        [7, 8, 18],
      );
      assert.equal((await b.add('lease', 5000, 1)).current, 19, 'another store counts on after them');
    });

    it('starts a window again at one once it ended, and sweeps windows long over', async () => {
      assert.equal((await a.add('short', 100, 1)).current, 1);
      assert.equal((await a.add('short', 100, 1)).current, 2);
      // On purpose: the 100 ms window must end.
      await pause(150);
      const again = await a.add('short', 100, 1);
      assert.equal(again.current, 1);
      assert.equal(await a.sweep(), 0, 'nothing ended a minute ago');
    });
  });
}
