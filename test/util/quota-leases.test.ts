/**
 * The one engine of quota leases (src/util/quota-leases.ts), under a policy of its own:
 * waiters alike share a block, unlike ones wait for the next, a block that ended is not
 * used, unused places go back when the terms change, and a failed count fails its waiters.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QuotaLeases } from '../../src/util/quota-leases.js';
import type { Block, QuotaPolicy, Taken } from '../../src/util/quota-leases.js';

interface Terms {
  window: string;
}
interface Counted extends Block {
  until: number;
}

function harness(options: { granted?: number; size?: number } = {}) {
  const clock = { now: 0 };
  const counts: { window: string; n: number }[] = [];
  const givenBack: { window: string; n: number }[] = [];
  let failing = false;
  const policy: QuotaPolicy<Terms, Counted> = {
    alike: (a, b) => a.window === b.window,
    current: (block, now) => block.until > now,
    size: () => options.size ?? 3,
    count: async (_key, first, n) => {
      await Promise.resolve();
      if (failing) throw new Error('count away');
      counts.push({ window: first.window, n });
      return { granted: Math.min(n, options.granted ?? n), until: clock.now + 1000 };
    },
    refuses: (block) => block.granted < (options.size ?? 3),
    giveBack: async (_key, terms, n) => {
      givenBack.push({ window: terms.window, n });
    },
  };
  const leases = new QuotaLeases(policy, () => clock.now, { idleMs: null, keptKeys: 10 });
  return { leases, clock, counts, givenBack, fail: (on: boolean) => (failing = on) };
}

const place = (t: Taken<Counted>): number | 'refused' => ('place' in t ? t.place : 'refused');

describe('quota leases', () => {
  it('counts a block for the first request, and one as large as the queue for those that waited', async () => {
    const h = harness({ size: 3 });
    const taken = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h.leases.take('k', { window: 'a' })));
    // The first asked for its block of 3; the three that came while it was counted take the next.
    assert.deepEqual(taken.map(place), [0, 1, 2, 0, 1, 2]);
    assert.deepEqual(h.counts, [
      { window: 'a', n: 3 },
      { window: 'a', n: 3 },
    ]);
    // Seven more: a block of 3 for the first, then one as large as the four still waiting.
    const more = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => h.leases.take('k', { window: 'a' })));
    assert.deepEqual(more.map(place), [0, 1, 2, 0, 1, 2, 3]);
    assert.deepEqual(h.counts[2], { window: 'a', n: 3 });
    assert.deepEqual(h.counts[3], { window: 'a', n: 4 });
  });

  it('gives unused places back when the terms change, and counts the new terms apart', async () => {
    const h = harness({ size: 3 });
    await h.leases.take('k', { window: 'a' });
    await h.leases.take('k', { window: 'b' });
    assert.deepEqual(h.givenBack, [{ window: 'a', n: 2 }]);
    assert.deepEqual(
      h.counts.map((c) => c.window),
      ['a', 'b'],
    );
  });

  it('does not hand out a place of a block whose window ended', async () => {
    const h = harness({ size: 3 });
    await h.leases.take('k', { window: 'a' });
    h.clock.now = 5000;
    await h.leases.take('k', { window: 'a' });
    assert.equal(h.counts.length, 2);
  });

  it('refuses the waiters a short block could not place, when the policy says the count refused', async () => {
    const h = harness({ size: 3, granted: 1 });
    const taken = await Promise.all([1, 2, 3].map(() => h.leases.take('k', { window: 'a' })));
    assert.deepEqual(taken.map(place), [0, 'refused', 'refused']);
  });

  it('puts a place back into its block, so the next request needs no count', async () => {
    const h = harness({ size: 1 });
    await h.leases.take('k', { window: 'a' });
    await h.leases.putBack('k', { window: 'a' });
    await h.leases.take('k', { window: 'a' });
    assert.equal(h.counts.length, 1);
  });

  it('fails the waiters of a count that failed, and asks again for the next request', async () => {
    const h = harness();
    h.fail(true);
    await assert.rejects(h.leases.take('k', { window: 'a' }), /count away/);
    h.fail(false);
    assert.equal(place(await h.leases.take('k', { window: 'a' })), 0);
  });

  it('gives every unused place back at close', async () => {
    const h = harness({ size: 4 });
    await h.leases.take('k', { window: 'a' });
    await h.leases.close();
    assert.deepEqual(h.givenBack, [{ window: 'a', n: 3 }]);
  });
});
