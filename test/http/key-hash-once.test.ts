/**
 * With the general rate limiter on, the key is hashed once a request: the limiter's hash is
 * the one authentication looks the key up by.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { AuthService } from '../../src/services/auth.js';
import type { Caller } from '../../src/services/auth.js';
import { hashApiKey } from '../../src/services/key-secrets.js';
import type { Result } from '../../src/domain/result.js';
import { createHarness } from '../helpers/harness.js';

/** Authentication as usual, recording the hash it was handed. */
class RecordingAuth extends AuthService {
  readonly handed: (string | undefined)[] = [];
  override authenticate(apiKey: string, clientIp: string, keyHash?: string): Promise<Result<Caller>> {
    this.handed.push(keyHash);
    return super.authenticate(apiKey, clientIp, keyHash);
  }
}

describe('general rate limiter: one hash of the key a request', () => {
  for (const requestsPerSecond of [5, 0]) {
    it(`authentication ${requestsPerSecond > 0 ? 'reuses the limiter\u2019s hash' : 'hashes the key itself with the limiter off'}`, async () => {
      const h = await createHarness();
      const auth = new RecordingAuth(h.runtime.store.keys, h.clock);
      const app = await buildApp({
        connections: defaultConnectionLimits,
        services: { ...h.runtime.services, auth },
        requestsPerSecond,
      });
      try {
        const p = await h.provision({ account: { balanceMain: 7 } });
        const post = async (apiKey: string) => {
          const response = await app.inject({
            method: 'POST',
            url: '/balance/',
            payload: { api_key: apiKey },
            remoteAddress: '127.0.0.1',
          });
          return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
        };
        const known = await post(p.apiKey);
        assert.equal(known.status, 200);
        assert.equal(known.body.balance_main, 7);
        const unknown = await post(`${p.apiKey.slice(0, -1)}x`);
        assert.equal(unknown.body.result_code, 'TS-1031');
        const expected =
          requestsPerSecond > 0
            ? [hashApiKey(p.apiKey), hashApiKey(`${p.apiKey.slice(0, -1)}x`)]
            : [undefined, undefined];
        assert.deepEqual(auth.handed, expected);
      } finally {
        await app.close();
        await h.close();
      }
    });
  }
});
