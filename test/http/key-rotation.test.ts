/**
 * Key rotation moves the old key's settings to the new key (spec, States and transitions:
 * "permissions and settings are moved to it"): seen through HTTP with the new key, its IP
 * allowlist, its request limits, its expiry and its permissions still apply.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Harness, ProvisionOptions } from '../helpers/harness.js';
import { assertRefused } from '../helpers/sms.js';
import { valueOf } from '../helpers/results.js';

const allowed = '203.0.113.7';
const outside = '198.51.100.1';

describe('a rotated key keeps its settings', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  async function rotated(options: ProvisionOptions, keepOld = false): Promise<string> {
    const p = await h.provision(options);
    return (await valueOf(h.runtime.admin.rotateKey(p.keyId, keepOld))).api_key;
  }

  for (const keepOld of [false, true]) {
    it(`its IP allowlist${keepOld ? ' (keep-old)' : ''}`, async () => {
      const apiKey = await rotated({ key: { ipAllow: ['203.0.113.0/24'] } }, keepOld);
      assertRefused(await h.post('/balance/', { api_key: apiKey }, { ip: outside }), 'TS-1066', 403);
      assert.equal((await h.post('/balance/', { api_key: apiKey }, { ip: allowed })).body.result_code, 'TS-1040');
    });
  }

  for (const [limit, code] of [
    ['hourlyLimit', 'TS-1068'],
    ['dailyLimit', 'TS-1069'],
    ['monthlyLimit', 'TS-1073'],
  ] as const) {
    it(`its ${limit}`, async () => {
      const apiKey = await rotated({ key: { [limit]: 1 } });
      assert.equal((await h.post('/balance/', { api_key: apiKey })).body.result_code, 'TS-1040');
      assertRefused(await h.post('/balance/', { api_key: apiKey }), code, 429);
    });
  }

  it('its expiry date', async () => {
    const apiKey = await rotated({ key: { expiresOn: '2026-03-16' } });
    assert.equal((await h.post('/balance/', { api_key: apiKey })).body.result_code, 'TS-1040');
    h.clock.set(defaultNow + 2 * 24 * 3600_000);
    try {
      assertRefused(await h.post('/balance/', { api_key: apiKey }), 'TS-1035', 403);
    } finally {
      h.clock.set(defaultNow);
    }
  });

  it('its permissions', async () => {
    const p = await h.provision();
    const key = await valueOf(h.runtime.admin.key(p.keyId));
    await valueOf(h.runtime.admin.updateKey(p.keyId, { permissions: { ...key.permissions, check_balance: false } }));
    const { api_key: apiKey } = await valueOf(h.runtime.admin.rotateKey(p.keyId, false));
    assertRefused(await h.post('/balance/', { api_key: apiKey }), 'TS-1065', 403);
    assert.equal((await h.post('/senderid/check', { api_key: apiKey })).body.result_code, 'TS-1040');
  });
});
