/**
 * The per-key rate taken in leases (rate-leases.ts): every place handed out was counted in
 * the shared tally first, so processes sharing one never admit more than the limit in a
 * window; a lease saves the round trips of the requests it covers; a tally that fails fails
 * the requests waiting on it (the HTTP layer lets them through) and the next request asks again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RateLeases, leaseSize } from '../../src/adapters/rate/rate-leases.js';
import type { Counted, RateTally } from '../../src/ports/rate-counter.js';

/** A shared tally in memory, on a clock the test moves; counts its calls. */
class MemoryTally implements RateTally {
  readonly name = 'memory';
  calls: number[] = [];
  failing = false;
  private windows = new Map<string, { count: number; end: number }>();
  constructor(private readonly clock: { now: number }) {}
  async add(key: string, windowMs: number, n: number): Promise<Counted> {
    await Promise.resolve();
    if (this.failing) throw new Error('tally away');
    this.calls.push(n);
    let w = this.windows.get(key);
    if (!w || w.end <= this.clock.now) {
      w = { count: 0, end: this.clock.now + windowMs };
      this.windows.set(key, w);
    }
    w.count += n;
    return { current: w.count, ttlMs: w.end - this.clock.now };
  }
  async close(): Promise<void> {}
}

describe('rate leases', () => {
  it('is a twentieth of the limit, at least one', () => {
    assert.deepEqual(
      [leaseSize(1), leaseSize(39), leaseSize(40), leaseSize(100), leaseSize(1_000_000)],
      [1, 1, 2, 5, 50_000],
    );
  });

  it('counts every request it admits in the shared tally: two processes together admit the limit, not more', async () => {
    const clock = { now: 1000 };
    const tally = new MemoryTally(clock);
    const one = new RateLeases(tally, () => clock.now);
    const two = new RateLeases(tally, () => clock.now);
    const max = 100;
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? one : two).hit('k', 1000, max)),
    );
    const places = answers.map((a) => a.current);
    assert.equal(new Set(places).size, 300, 'every request has a place of its own');
    const admitted = places.filter((p) => p <= max).length;
    assert.ok(admitted <= max, `admitted ${admitted}`);
    // Leased places left unused are at most a lease less a place per process.
    assert.ok(admitted >= max - 2 * (leaseSize(max) - 1), `admitted ${admitted}`);
  });

  it('answers the requests a lease covers without asking the tally again, and asks again when the window ended', async () => {
    const clock = { now: 0 };
    const tally = new MemoryTally(clock);
    const leases = new RateLeases(tally, () => clock.now);
    const first = await leases.hit('k', 1000, 100);
    assert.equal(first.current, 1);
    for (let i = 2; i <= 5; i++) assert.equal((await leases.hit('k', 1000, 100)).current, i);
    assert.deepEqual(tally.calls, [5], 'one call for the lease of 5');
    assert.equal((await leases.hit('k', 1000, 100)).current, 6);
    assert.deepEqual(tally.calls, [5, 5]);
    clock.now = 1000;
    assert.equal((await leases.hit('k', 1000, 100)).current, 1, 'a new window');
    assert.deepEqual(tally.calls, [5, 5, 5]);
  });

  it('takes one lease for the requests that wait on it, however many', async () => {
    const clock = { now: 0 };
    const tally = new MemoryTally(clock);
    const leases = new RateLeases(tally, () => clock.now);
    const answers = await Promise.all(Array.from({ length: 30 }, () => leases.hit('k', 1000, 20)));
    assert.deepEqual(
      answers.map((a) => a.current),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.ok(tally.calls.length <= 2, `calls ${tally.calls.join(', ')}`);
    assert.equal(
      tally.calls.reduce((a, b) => a + b, 0),
      30,
    );
  });

  it('fails the waiting requests when the tally fails, and asks again at the next request', async () => {
    const clock = { now: 0 };
    const tally = new MemoryTally(clock);
    const leases = new RateLeases(tally, () => clock.now);
    tally.failing = true;
    const failed = await Promise.allSettled([leases.hit('k', 1000, 100), leases.hit('k', 1000, 100)]);
    assert.deepEqual(
      failed.map((f) => f.status),
      ['rejected', 'rejected'],
    );
    tally.failing = false;
    assert.equal((await leases.hit('k', 1000, 100)).current, 1);
  });
});
