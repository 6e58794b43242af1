/**
 * POST /balance/ against the spec: its one response field and every row of its error
 * table, with the codes and statuses written out from the spec.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allPermissions } from '../../src/domain/permissions.js';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';

const path = '/balance/';

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('balance_main' in answer.body, false);
}

describe('POST /balance/', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());
  beforeEach(() => h.clock.set(defaultNow));

  describe('HTTP 400', () => {
    it('TS-1050: api_key missing', async () => {
      assertFailure(await h.post(path, {}), 'TS-1050', 400);
      assertFailure(await h.post(path, { api_key: '' }), 'TS-1050', 400);
      assertFailure(await h.post(path, { other: 'x' }), 'TS-1050', 400);
    });

    it('TS-1025: key under 30 characters', async () => {
      assertFailure(await h.post(path, { api_key: 'k' }), 'TS-1025', 400);
      assertFailure(await h.post(path, { api_key: 'k'.repeat(20) }), 'TS-1025', 400);
      assertFailure(await h.post(path, { api_key: 'k'.repeat(29) }), 'TS-1025', 400);
    });

    it('TS-1025: a real key cut to 29 characters', async () => {
      const p = await h.provision();
      assertFailure(await h.post(path, { api_key: p.apiKey.slice(0, 29) }), 'TS-1025', 400);
    });

    it('TS-1033: body invalid', async () => {
      assertFailure(await h.post(path, undefined, { raw: '{"api_key":' }), 'TS-1033', 400);
      assertFailure(await h.post(path, ['x']), 'TS-1033', 400);
    });
  });

  describe('HTTP 403', () => {
    it('TS-1031: a key of 30 characters that is not found', async () => {
      assertFailure(await h.post(path, { api_key: 'k'.repeat(30) }), 'TS-1031', 403);
      assertFailure(await h.post(path, { api_key: 'k'.repeat(128) }), 'TS-1031', 403);
    });

    it('TS-1065: check_balance off', async () => {
      const p = await h.provision({ key: { permissions: { ...allPermissions(true), check_balance: false } } });
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1065', 403);
    });

    it('check_balance alone is enough', async () => {
      const p = await h.provision({ key: { permissions: { ...allPermissions(false), check_balance: true } } });
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1040');
    });

    it('TS-1030: account suspended', async () => {
      const p = await h.provision();
      await h.runtime.admin.updateAccount(p.accountId, { status: 'Suspended' }, {});
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1030', 403);
    });

    it('TS-1035: key paused, revoked or expired', async () => {
      const paused = await h.provision();
      await h.runtime.admin.changeKeyState(paused.keyId, 'pause');
      assertFailure(await h.post(path, { api_key: paused.apiKey }), 'TS-1035', 403);
      const revoked = await h.provision();
      await h.runtime.admin.changeKeyState(revoked.keyId, 'revoke');
      assertFailure(await h.post(path, { api_key: revoked.apiKey }), 'TS-1035', 403);
      const expired = await h.provision({ key: { expiresOn: '2026-03-14' } });
      assertFailure(await h.post(path, { api_key: expired.apiKey }), 'TS-1035', 403);
    });

    it('TS-1066: address not allowed', async () => {
      const p = await h.provision({ key: { ipAllow: ['192.0.2.1'] } });
      assertFailure(await h.post(path, { api_key: p.apiKey }, { ip: '192.0.2.2' }), 'TS-1066', 403);
    });

    it('a key state check comes before the permission check', async () => {
      const p = await h.provision({ key: { permissions: allPermissions(false) } });
      await h.runtime.admin.changeKeyState(p.keyId, 'pause');
      assertFailure(await h.post(path, { api_key: p.apiKey }), 'TS-1035', 403);
    });
  });

  describe('HTTP 429', () => {
    it('TS-1068, TS-1069, TS-1073: request limits', async () => {
      for (const [limit, code] of [
        ['hourlyLimit', 'TS-1068'],
        ['dailyLimit', 'TS-1069'],
        ['monthlyLimit', 'TS-1073'],
      ] as const) {
        const p = await h.provision({ key: { [limit]: 1 } });
        assert.equal((await h.post(path, { api_key: p.apiKey })).body.result_code, 'TS-1040');
        assertFailure(await h.post(path, { api_key: p.apiKey }), code, 429);
      }
    });
  });

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
      await h.runtime.admin.topup(p.accountId, 250, false);
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.balance_main, 250);
      await h.runtime.admin.topup(p.accountId, 99, true);
      assert.equal((await h.post(path, { api_key: p.apiKey })).body.balance_main, 250);
      await h.runtime.admin.debit(p.accountId, 50, false, 'test');
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
