/**
 * Request counts taken in leases (usage-leases.ts): the store admits a lease's requests as it
 * would one by one, so processes sharing it never admit more than a limit; places left unused
 * are given back when the key idles, when its windows change, and at a stop; a request refused
 * after it was counted gives its place back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UsageLeases, usageLeaseSize } from '../../src/services/usage-leases.js';
import type { UsageCounts } from '../../src/services/usage-leases.js';
import { countOne } from '../../src/domain/request-limits.js';
import type { LimitHit, Usage, UsageRequest, UsageWindows } from '../../src/domain/request-limits.js';
import { waitFor } from '../helpers/wait-for.js';

/** One key's counts in memory, counted by the domain's rule; counts its calls. */
class MemoryCounts implements UsageCounts {
  usage: Usage = { hour: '', hourCount: 0, day: '', dayCount: 0, month: '', monthCount: 0 };
  consumeCalls = 0;
  refunds: number[] = [];
  async consumeRequests(items: readonly UsageRequest[]): Promise<(LimitHit | null)[]> {
    await new Promise((r) => setImmediate(r));
    this.consumeCalls++;
    return items.map((i) => countOne(this.usage, i.limits, i.windows));
  }
  async refundRequest(_keyId: number, windows: UsageWindows, count = 1): Promise<void> {
    this.refunds.push(count);
    if (this.usage.hour === windows.hour) this.usage.hourCount = Math.max(0, this.usage.hourCount - count);
    if (this.usage.day === windows.day) this.usage.dayCount = Math.max(0, this.usage.dayCount - count);
    if (this.usage.month === windows.month) this.usage.monthCount = Math.max(0, this.usage.monthCount - count);
  }
}

const windows: UsageWindows = { hour: '2026-11-25T10', day: '2026-11-25', month: '2026-11' };
const request = (hourly: number, w: UsageWindows = windows): UsageRequest => ({
  keyId: 7,
  limits: { hourly, daily: 0, monthly: 0 },
  windows: w,
});

describe('request counts in leases', () => {
  it('leases a twentieth of the smallest limit, 1 to 1000', () => {
    assert.deepEqual(
      [
        usageLeaseSize({ hourly: 0, daily: 0, monthly: 0 }),
        usageLeaseSize({ hourly: 39, daily: 0, monthly: 0 }),
        usageLeaseSize({ hourly: 1000, daily: 100, monthly: 0 }),
        usageLeaseSize({ hourly: 10 ** 9, daily: 0, monthly: 0 }),
      ],
      [1, 1, 5, 1000],
    );
  });

  it('two processes on one store admit the limit, never more, and give back what they did not use', async () => {
    const store = new MemoryCounts();
    const one = new UsageLeases(store, Date.now);
    const two = new UsageLeases(store, Date.now);
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 ? one : two).take(request(100))));
    const admitted = answers.filter((a) => 'undo' in a).length;
    assert.ok(
      admitted <= 100 && admitted >= 100 - 2 * (usageLeaseSize(request(100).limits) - 1),
      `admitted ${admitted}`,
    );
    for (const a of answers) if ('refused' in a) assert.equal(a.refused, 'hourly');
    await one.close();
    await two.close();
    assert.equal(
      store.usage.hourCount,
      admitted,
      'the store counts the requests admitted, and nothing leased beyond them',
    );
  });

  it('answers the requests a lease covers without the store, and gives a refused request back to its lease', async () => {
    const store = new MemoryCounts();
    const leases = new UsageLeases(store, Date.now);
    const first = await leases.take(request(1000));
    assert.ok('undo' in first);
    for (let i = 0; i < 49; i++) assert.ok('undo' in (await leases.take(request(1000))));
    assert.equal(store.consumeCalls, 1, 'one lease of 50');
    assert.equal(store.usage.hourCount, 50);
    await first.undo();
    assert.deepEqual(store.refunds, [], 'given back to the lease, not the store');
    assert.ok('undo' in (await leases.take(request(1000))));
    assert.equal(store.consumeCalls, 1, 'the place given back was used again');
    await leases.close();
    assert.equal(store.usage.hourCount, 50);
  });

  it('gives unused places back when the key idles, and when its window moves on', async () => {
    const store = new MemoryCounts();
    const leases = new UsageLeases(store, Date.now, 30);
    assert.ok('undo' in (await leases.take(request(1000))));
    assert.equal(store.usage.hourCount, 50);
    await waitFor('the unused places given back after 30 ms idle', () => store.usage.hourCount === 1);
    assert.equal(store.usage.hourCount, 1, 'the 49 unused were given back');
    const next = { ...windows, hour: '2026-11-25T11' };
    assert.ok('undo' in (await leases.take(request(1000))));
    assert.ok('undo' in (await leases.take(request(1000, next))));
    assert.deepEqual(store.refunds, [49, 49], 'the old hour\u2019s lease given back before the new one was taken');
    assert.equal(store.usage.dayCount, 1 + 1 + 50, 'the day counts the three requests and the new lease');
    await leases.close();
    assert.equal(store.usage.dayCount, 3);
  });

  it('refuses with the limit reached once the store admits no more', async () => {
    const store = new MemoryCounts();
    const leases = new UsageLeases(store, Date.now);
    const answers = await Promise.all(Array.from({ length: 5 }, () => leases.take(request(3))));
    assert.deepEqual(
      answers.map((a) => ('refused' in a ? a.refused : 'admitted')),
      ['admitted', 'admitted', 'admitted', 'hourly', 'hourly'],
    );
    await leases.close();
  });
});
