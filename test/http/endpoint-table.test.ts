/**
 * Shared endpoint tests, generated from the endpoint table: every endpoint answers the
 * key, state, address, account, limit and permission failures with its own code and the
 * HTTP status of its row in the spec's error table (read from test/fixtures, not from src),
 * in its envelope with nothing but the envelope's fields, and answers every method but
 * POST with 405. The endpoint files in test/endpoints test only what is each endpoint's own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpoints } from '../../src/endpoints/index.js';
import { statusOf } from '../../src/http/envelope.js';
import { allPermissions, permissionOffCode } from '../../src/domain/permissions.js';
import type { Endpoint } from '../../src/endpoints/endpoint.js';
import type { ResultCode } from '../../src/domain/result-codes.js';
import { specStatus, specStatuses } from '../fixtures/spec-error-statuses.js';
import type { SpecCondition } from '../fixtures/spec-error-statuses.js';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { validRequest } from '../helpers/valid-requests.js';
import { valueOf } from '../helpers/results.js';

const conditions: readonly string[] = ['key-missing', 'key-malformed', 'key-unknown', 'body'] satisfies SpecCondition[];

/**
 * The status the spec's per-endpoint table gives the code (test/fixtures, transcribed from
 * the spec); where the spec gives none (the group endpoints' own codes), the endpoint table's.
 */
function expectedStatus(endpoint: Endpoint, code: ResultCode, variant: string | undefined): number {
  const condition = variant !== undefined && conditions.includes(variant) ? (variant as SpecCondition) : undefined;
  return specStatus(endpoint.path, code, condition) ?? statusOf(endpoint, code, variant, false);
}

/** The envelope of a failure and nothing else: none of the endpoint's success fields. */
function assertEnvelope(endpoint: Endpoint, answer: Answer, code: ResultCode): void {
  assert.equal(answer.body.result_code, code, `${endpoint.path}: ${answer.raw}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  const head = endpoint.envelope === 'result' ? 'result' : 'status';
  assert.deepEqual(
    Object.keys(answer.body).sort(),
    [head, 'result_code', 'result_message'].sort(),
    `${endpoint.path}: ${answer.raw}`,
  );
  if (endpoint.envelope === 'result') assert.equal(answer.body.result, false);
  else assert.equal(answer.body.status, 'error');
  assert.equal(typeof answer.body.result_message, 'string');
}

function assertFailure(endpoint: Endpoint, answer: Answer, code: ResultCode, variant?: string): void {
  assertEnvelope(endpoint, answer, code);
  assert.equal(answer.status, expectedStatus(endpoint, code, variant), `${endpoint.path} ${code}`);
  assert.ok(answer.status >= 400, `${endpoint.path} ${code} is a failure status`);
  // Only a limit tells the client when to come back.
  if (answer.status !== 429)
    assert.equal(answer.headers['retry-after'], undefined, `${endpoint.path} ${code}: no Retry-After`);
}

/** The code a wrong path or method under this endpoint answers with: the spec's wrong-path row, else TS-404. */
function wrongPathCode(endpoint: Endpoint): ResultCode {
  return (specStatuses[endpoint.path]?.find((row) => row.when?.includes('wrong-path') === true)?.code ??
    'TS-404') as ResultCode;
}

for (const endpoint of endpoints) {
  describe(`endpoint table: ${endpoint.path}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness();
    });
    after(async () => h.close());

    it('answers a missing, empty or null api_key with its missing-key code', async () => {
      assertFailure(endpoint, await h.post(endpoint.path, {}), endpoint.key.missing, 'key-missing');
      assertFailure(endpoint, await h.post(endpoint.path, { api_key: '' }), endpoint.key.missing, 'key-missing');
      assertFailure(endpoint, await h.post(endpoint.path, { api_key: null }), endpoint.key.missing, 'key-missing');
    });

    it('answers a key shorter than its minimum, longer than its maximum or not a string with its malformed-key code', async () => {
      assertFailure(
        endpoint,
        await h.post(endpoint.path, { api_key: 'x'.repeat(endpoint.key.min - 1) }),
        endpoint.key.malformed,
        'key-malformed',
      );
      assertFailure(
        endpoint,
        await h.post(endpoint.path, { api_key: 'x'.repeat(endpoint.key.max + 1) }),
        endpoint.key.malformed,
        'key-malformed',
      );
      assertFailure(endpoint, await h.post(endpoint.path, { api_key: 12345 }), endpoint.key.malformed, 'key-malformed');
    });

    it('answers an unknown key of a valid length, either end of the range included, with TS-1031', async () => {
      for (const length of [endpoint.key.min, Math.max(endpoint.key.min, 40), endpoint.key.max]) {
        assertFailure(endpoint, await h.post(endpoint.path, { api_key: 'k'.repeat(length) }), 'TS-1031', 'key-unknown');
      }
      // Near misses of a real key are unknown keys too: nothing is trimmed or matched loosely.
      const p = await h.provision();
      const last = p.apiKey.slice(-1) === 'A' ? 'B' : 'A';
      assertFailure(
        endpoint,
        await h.post(endpoint.path, { api_key: `${p.apiKey.slice(0, -1)}${last}` }),
        'TS-1031',
        'key-unknown',
      );
    });

    for (const action of ['pause', 'revoke'] as const) {
      it(`answers a ${action}d key with TS-1035`, async () => {
        const p = await h.provision();
        await valueOf(h.runtime.admin.changeKeyState(p.keyId, action));
        assertFailure(endpoint, await h.post(endpoint.path, { api_key: p.apiKey }), 'TS-1035');
      });
    }

    it('answers an expired key with TS-1035', async () => {
      const p = await h.provision({ key: { expiresOn: '2026-03-14' } });
      assertFailure(endpoint, await h.post(endpoint.path, { api_key: p.apiKey }), 'TS-1035');
    });

    it('answers a request from outside the IP allowlist with TS-1066', async () => {
      const p = await h.provision({ key: { ipAllow: ['10.0.0.0/8'] } });
      assertFailure(endpoint, await h.post(endpoint.path, { api_key: p.apiKey }, { ip: '192.0.2.7' }), 'TS-1066');
    });

    it(`answers a key of a suspended account with ${endpoint.accountInactive ?? 'TS-1030'}`, async () => {
      const p = await h.provision();
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { status: 'Suspended' }, {}));
      assertFailure(
        endpoint,
        await h.post(endpoint.path, { api_key: p.apiKey }),
        endpoint.accountInactive ?? 'TS-1030',
        'account-inactive',
      );
    });

    it('answers a body that is not JSON, or JSON that is not an object, with its invalid-body code', async () => {
      assertFailure(
        endpoint,
        await h.post(endpoint.path, undefined, { raw: '{"api_key":' }),
        endpoint.invalidBody,
        'body',
      );
      assertFailure(endpoint, await h.post(endpoint.path, [{ api_key: 'k'.repeat(40) }]), endpoint.invalidBody, 'body');
      assertFailure(
        endpoint,
        await h.post(endpoint.path, undefined, { raw: '"api_key"' }),
        endpoint.invalidBody,
        'body',
      );
    });

    it('answers every other method with 405 and Allow: POST in its envelope', async () => {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
        const answer = await h.post(
          endpoint.path,
          method === 'GET' || method === 'DELETE' ? undefined : { api_key: 'k'.repeat(40) },
          { method },
        );
        assertEnvelope(endpoint, answer, wrongPathCode(endpoint));
        assert.equal(answer.status, 405, `${method} ${endpoint.path}`);
        assert.equal(answer.headers.allow, 'POST');
      }
    });

    if (endpoint.permissions.length > 1) {
      it(`checks its permissions in order: ${permissionOffCode[endpoint.permissions[0] ?? 'post_request']} when all are off`, async () => {
        const p = await h.provision();
        const key = await valueOf(h.runtime.admin.key(p.keyId));
        const off = Object.fromEntries(endpoint.permissions.map((permission) => [permission, false]));
        await valueOf(h.runtime.admin.updateKey(p.keyId, { permissions: { ...key.permissions, ...off } }));
        const first = endpoint.permissions[0];
        assert.ok(first !== undefined);
        assertFailure(
          endpoint,
          await h.post(endpoint.path, { api_key: p.apiKey }),
          permissionOffCode[first],
          'permission',
        );
      });
    }

    it("checks the key's state before its permissions", async () => {
      const p = await h.provision({ key: { permissions: allPermissions(false) } });
      await valueOf(h.runtime.admin.changeKeyState(p.keyId, 'pause'));
      assertFailure(endpoint, await h.post(endpoint.path, { api_key: p.apiKey }), 'TS-1035');
    });

    it('needs no permission but its own', async () => {
      const own = Object.fromEntries(endpoint.permissions.map((permission) => [permission, true]));
      const p = await h.provision({ key: { permissions: { ...allPermissions(false), ...own } } });
      const answer = await h.post(endpoint.path, { api_key: p.apiKey, ...(await validRequest(h, p, endpoint.path)) });
      assert.ok(answer.body.result === true || answer.body.status === 'success', `${endpoint.path}: ${answer.raw}`);
    });

    for (const permission of endpoint.permissions) {
      it(`answers with ${permissionOffCode[permission]} when ${permission} is off`, async () => {
        const p = await h.provision();
        const key = await valueOf(h.runtime.admin.key(p.keyId));
        await valueOf(h.runtime.admin.updateKey(p.keyId, { permissions: { ...key.permissions, [permission]: false } }));
        assertFailure(
          endpoint,
          await h.post(endpoint.path, { api_key: p.apiKey }),
          permissionOffCode[permission],
          'permission',
        );
      });
    }

    if (endpoint.limited) {
      for (const [limit, code] of [
        ['hourlyLimit', 'TS-1068'],
        ['dailyLimit', 'TS-1069'],
        ['monthlyLimit', 'TS-1073'],
      ] as const) {
        it(`answers with ${code} and Retry-After once the ${limit} is reached`, async () => {
          const p = await h.provision({ key: { [limit]: 1 } });
          const first = await h.post(endpoint.path, {
            api_key: p.apiKey,
            ...(await validRequest(h, p, endpoint.path)),
          });
          assert.ok(first.body.result === true || first.body.status === 'success', `${endpoint.path}: ${first.raw}`);
          const second = await h.post(endpoint.path, {
            api_key: p.apiKey,
            ...(await validRequest(h, p, endpoint.path)),
          });
          assertFailure(endpoint, second, code);
          assert.equal(second.status, 429);
          assert.ok(Number(second.headers['retry-after']) >= 1);
        });
      }
    }
  });
}

describe('endpoint table: general request rate', () => {
  it('answers TS-1060 with HTTP 429, Retry-After and rate-limit headers past the per-key rate', async () => {
    const h = await createHarness(undefined, { requestsPerSecond: 3 });
    try {
      const p = await h.provision();
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) answers.push(await h.post('/balance/', { api_key: p.apiKey }));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 429],
      );
      assert.equal(answers[0]?.headers['x-ratelimit-limit'], '3');
      assert.equal(answers[0]?.headers['x-ratelimit-remaining'], '2');
      const last = answers[3];
      assert.equal(last?.body.result_code, 'TS-1060');
      assert.equal(last?.body.result, false);
      assert.ok(Number(last?.headers['retry-after']) >= 1);
      // The rate is per key and endpoint (docs/decisions.md): the same key still reaches another endpoint.
      const elsewhere = await h.post('/senderid/check', { api_key: p.apiKey, title: 'NOSUCH' });
      assert.notEqual(elsewhere.status, 429);
      assert.equal(elsewhere.headers['x-ratelimit-remaining'], '2');
      // Another key is not held back by the first one's rate.
      const other = await h.post('/balance/', { api_key: (await h.provision()).apiKey });
      assert.equal(other.status, 200);
    } finally {
      await h.close();
    }
  });
});
