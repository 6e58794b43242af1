/**
 * The per-key rate counted in Redis (issue 24): every request of a window gets its own place
 * in it, however the hits are batched and from however many clients (processes); a window
 * that ended starts again at one. Needs a Redis (HABERCI_TEST_REDIS); skipped, saying why,
 * without one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { RedisRateCounter } from '../../src/adapters/rate/redis-rate-counter.js';
import { redisSkipReason, testRedisUrl } from '../helpers/redis.js';
import { pause } from '../helpers/wait-for.js';

// Asked once, before the tests are declared, so each test carries its skip (with the reason).
const skip = await redisSkipReason();

describe('the rate counted in Redis', () => {
  let one: RedisRateCounter;
  let other: RedisRateCounter;
  const prefix = `test-${randomBytes(4).toString('hex')}-`;

  before(async () => {
    if (skip) return;
    one = new RedisRateCounter(testRedisUrl, pino({ level: 'silent' }));
    other = new RedisRateCounter(testRedisUrl, pino({ level: 'silent' }));
    assert.equal(await one.connect(2000), true);
    assert.equal(await other.connect(2000), true);
  });
  after(async () => {
    if (skip) return;
    await one.close();
    await other.close();
  });

  it('gives every hit of a window its own place, across batches and clients', { skip }, async () => {
    const key = `${prefix}k`;
    const hits = await Promise.all([
      ...Array.from({ length: 40 }, () => one.add(key, 5000, 1)),
      ...Array.from({ length: 40 }, () => other.add(key, 5000, 1)),
    ]);
    assert.deepEqual(
      hits.map((h) => h.current).sort((a, b) => a - b),
      Array.from({ length: 80 }, (_, i) => i + 1),
    );
    for (const h of hits) assert.ok(h.ttlMs > 0 && h.ttlMs <= 5000, `ttl ${h.ttlMs}`);
    assert.equal((await one.add(`${prefix}other`, 5000, 1)).current, 1);
  });

  it('starts a window again at one once it ended', { skip }, async () => {
    const key = `${prefix}short`;
    assert.equal((await one.add(key, 100, 1)).current, 1);
    assert.equal((await other.add(key, 100, 1)).current, 2);
    // On purpose: the 100 ms window must end.
    await pause(150);
    assert.equal((await one.add(key, 100, 1)).current, 1);
  });
});

describe('a Redis that refuses connections', () => {
  // The test's timeout stands for "within its wait": connect() must answer, not hang.
  it('fails a count at once, and connect() says false within its wait', { timeout: 10_000 }, async () => {
    const counter = new RedisRateCounter('redis://127.0.0.1:1', pino({ level: 'silent' }));
    try {
      assert.equal(await counter.connect(500), false);
      // At once: refused because nothing is connected (no offline queue), not after a command timeout.
      await assert.rejects(counter.add('k', 1000, 1), /enableOfflineQueue/);
    } finally {
      await counter.close();
    }
  });
});
