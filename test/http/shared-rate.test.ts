/**
 * The per-key rate through a shared counter (issue 24: Redis, the PostgreSQL store): the
 * counter's answer refuses past the rate with TS-1060 and 429; a counter that fails lets the
 * request through (fail-open); and the key is looked up once a request, its lookup started
 * beside the count rather than after it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import type { RateCounter } from '../../src/ports/rate-counter.js';
import type { KeyStore } from '../../src/ports/keys.js';
import { AuthService } from '../../src/services/auth.js';
import { createHarness } from '../helpers/harness.js';

/** Counts in memory, answering after `delayMs`; `failing` makes every count reject. */
class SlowCounter implements RateCounter {
  readonly name = 'test';
  failing = false;
  readonly events: string[] = [];
  private readonly counts = new Map<string, number>();
  constructor(private readonly delayMs: number) {}
  async hit(key: string, windowMs: number): Promise<{ current: number; ttlMs: number }> {
    this.events.push('count started');
    await new Promise((r) => setTimeout(r, this.delayMs));
    this.events.push('count answered');
    if (this.failing) throw new Error('counter away');
    const current = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, current);
    return { current, ttlMs: windowMs };
  }
  async close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('the per-key rate through a shared counter', () => {
  it('refuses past the rate, lets requests through when the counter fails, and looks the key up once, beside the count', async () => {
    const h = await createHarness();
    const counter = new SlowCounter(20);
    const keys = h.runtime.store.keys;
    // The key store as authentication sees it, noting each lookup among the counter's events.
    const watched: KeyStore = Object.create(keys) as KeyStore;
    watched.findKeyByHash = (hash) => {
      counter.events.push('lookup started');
      return keys.findKeyByHash(hash);
    };
    const auth = new AuthService(watched, h.clock);
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: { ...h.runtime.services, auth },
      requestsPerSecond: 2,
      rateCounter: counter,
    });
    try {
      const p = await h.provision({ account: { balanceMain: 7 } });
      const post = async () => {
        const response = await app.inject({
          method: 'POST',
          url: '/balance/',
          payload: { api_key: p.apiKey },
          remoteAddress: '127.0.0.1',
        });
        return {
          status: response.statusCode,
          code: (JSON.parse(response.body) as Record<string, unknown>).result_code,
        };
      };
      assert.deepEqual(await post(), { status: 200, code: 'TS-1040' });
      assert.deepEqual(
        counter.events,
        ['lookup started', 'count started', 'count answered'],
        'the lookup starts before the count answers, and only once',
      );
      assert.deepEqual(await post(), { status: 200, code: 'TS-1040' });
      assert.deepEqual(await post(), { status: 429, code: 'TS-1060' });
      counter.failing = true;
      assert.deepEqual(await post(), { status: 200, code: 'TS-1040' }, 'fail-open');
    } finally {
      await app.close();
      await h.close();
    }
  });
});
