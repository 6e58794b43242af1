/**
 * The general request rate a server has when nothing sets it (spec, Limits: "100 requests
 * per second with rate-limit headers in each response"): the app `serve` builds from the
 * default configuration allows a key 100 requests a second and answers the 101st TS-1060.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { createHttp, createLogger } from '../../src/main.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

describe('the default general request rate', () => {
  let h: Harness;
  let app: FastifyInstance;
  before(async () => {
    h = await createHarness();
    app = await createHttp({ container: h.runtime, config: loadConfig({}, {}), logger: createLogger('silent') });
  });
  after(async () => {
    await app.close();
    await h.close();
  });

  it('is 100 requests a second per key, announced in the rate-limit headers', async () => {
    const p = await h.provision();
    const answers: { status: number; code: unknown; limit: unknown; remaining: unknown }[] = [];
    // Until the first refusal; a window that ends meanwhile starts again at 99 remaining.
    while (answers.length < 1_000 && answers.at(-1)?.status !== 429) {
      const r = await app.inject({ method: 'POST', url: '/balance/', payload: { api_key: p.apiKey } });
      answers.push({
        status: r.statusCode,
        code: (JSON.parse(r.body) as Record<string, unknown>).result_code,
        limit: r.headers['x-ratelimit-limit'],
        remaining: r.headers['x-ratelimit-remaining'],
      });
    }
    const refused = answers.at(-1);
    assert.deepEqual([refused?.status, refused?.code], [429, 'TS-1060']);
    assert.ok(
      answers.every((a) => a.limit === '100'),
      'every answer announces the limit 100',
    );
    const windowStart = answers.map((a) => a.remaining).lastIndexOf('99');
    const window = answers.slice(windowStart, -1);
    assert.equal(window.length, 100, 'the key was answered 100 times in the window before the refusal');
    assert.ok(window.every((a) => a.status === 200 && a.code === 'TS-1040'));
    assert.equal(window.at(-1)?.remaining, '0');
  });
});
