/**
 * POST /balance/ against the spec: its one response field. Its error table (key, state,
 * address, permission, limits) is tested from the endpoint table (test/http/endpoint-table).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

const path = '/balance/';

describe('POST /balance/', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());
  beforeEach(() => h.clock.set(defaultNow));

  describe('HTTP 200 TS-1040', () => {
    it('answers balance_main, an integer', async () => {
      const p = await h.provision({ account: { balanceMain: 1000, balanceInternational: 55 } });
      const answer = await h.post(path, { api_key: p.apiKey });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.result, true);
      assert.equal(answer.body.result_code, 'TS-1040');
      assert.equal(typeof answer.body.result_message, 'string');
      assert.equal(answer.body.balance_main, 1000);
      assert.ok(Number.isInteger(answer.body.balance_main));
    });

    it('balance_main is the main balance only and follows top-ups', async () => {
      const p = await h.provision({ account: { balanceMain: 0, balanceInternational: 500 } });
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.balance_main, 0);
      await valueOf(h.runtime.admin.topup(p.accountId, 250, false));
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.balance_main, 250);
      await valueOf(h.runtime.admin.topup(p.accountId, 99, true));
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.balance_main, 250);
      await valueOf(h.runtime.admin.debit(p.accountId, 50, false, 'test'));
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.balance_main, 200);
    });

    it('each account sees its own balance', async () => {
      const a = await h.provision({ account: { balanceMain: 7 } });
      const b = await h.provision({ account: { balanceMain: 9 } });
      assert.equal((await h.post(path, { api_key: a.apiKey })).body.balance_main, 7);
      assert.equal((await h.post(path, { api_key: b.apiKey })).body.balance_main, 9);
    });
  });
});
