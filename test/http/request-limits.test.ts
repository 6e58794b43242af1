/**
 * The key's hourly, daily and monthly request limits through HTTP, on every store dialect:
 * windows are the Istanbul hour, day and calendar month; rejected requests are not counted;
 * Retry-After is the wait until the next window starts.
 */
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allPermissions } from '../../src/domain/permissions.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { valueOf } from '../helpers/results.js';

/** An Istanbul wall-clock time (UTC+3 all year since 2016) as an instant. */
function istanbul(year: number, month: number, day: number, hour: number, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour - 3, minute, second);
}

async function balance(h: Harness, apiKey: string, ip = '127.0.0.1'): Promise<Answer> {
  return h.post('/balance/', { api_key: apiKey }, { ip });
}

/** Calls /balance/ n times and returns the codes. */
async function codes(h: Harness, apiKey: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(String((await balance(h, apiKey)).body.result_code));
  return out;
}

function assertLimited(answer: Answer, code: string, retryAfter: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(answer.status, 429);
  assert.equal(answer.headers['retry-after'], String(retryAfter));
}

for (const dialect of testDialects()) {
  describeOn(dialect, `request limits (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    beforeEach(() => h.clock.set(defaultNow));

    describe('hourly (TS-1068)', () => {
      it('resets at the Istanbul hour: 10:59:59 -> 11:00:00', async () => {
        const p = await h.provision({ key: { hourlyLimit: 2 } });
        h.clock.set(istanbul(2026, 3, 15, 10, 59, 58));
        assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1068', 2);
        h.clock.set(istanbul(2026, 3, 15, 10, 59, 59));
        assertLimited(await balance(h, p.apiKey), 'TS-1068', 1);
        h.clock.set(istanbul(2026, 3, 15, 11, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1068', 3600);
      });

      it('Retry-After counts the seconds to the next hour', async () => {
        const p = await h.provision({ key: { hourlyLimit: 1 } });
        h.clock.set(istanbul(2026, 3, 15, 10, 15, 30));
        await balance(h, p.apiKey);
        assertLimited(await balance(h, p.apiKey), 'TS-1068', 2670);
        h.clock.set(istanbul(2026, 3, 15, 10, 15, 30) + 400);
        assertLimited(await balance(h, p.apiKey), 'TS-1068', 2670);
      });
    });

    describe('daily (TS-1069)', () => {
      it('resets at Istanbul midnight: 23:59:59 -> 00:00:00 (20:59:59 -> 21:00:00 UTC)', async () => {
        const p = await h.provision({ key: { dailyLimit: 2 } });
        h.clock.set(Date.UTC(2026, 2, 15, 20, 59, 59));
        assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1069', 1);
        h.clock.set(Date.UTC(2026, 2, 15, 21, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1069', 86400);
      });

      it('does not reset at UTC midnight', async () => {
        const p = await h.provision({ key: { dailyLimit: 1 } });
        h.clock.set(Date.UTC(2026, 2, 15, 23, 59, 59)); // 02:59:59 on the 16th in Istanbul
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        h.clock.set(Date.UTC(2026, 2, 16, 0, 0, 0));
        assertLimited(await balance(h, p.apiKey), 'TS-1069', 21 * 3600);
      });

      it('counts across the hours of one day', async () => {
        const p = await h.provision({ key: { dailyLimit: 2 } });
        h.clock.set(istanbul(2026, 3, 15, 0, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        h.clock.set(istanbul(2026, 3, 15, 15, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        h.clock.set(istanbul(2026, 3, 15, 20, 0, 0));
        assertLimited(await balance(h, p.apiKey), 'TS-1069', 4 * 3600);
      });
    });

    describe('monthly (TS-1073)', () => {
      it('resets at the Istanbul month: 2026-03-31 23:59:59 -> 2026-04-01 00:00:00', async () => {
        const p = await h.provision({ key: { monthlyLimit: 2 } });
        h.clock.set(istanbul(2026, 3, 31, 23, 59, 59));
        assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1073', 1);
        h.clock.set(istanbul(2026, 4, 1, 0, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1073', 30 * 86400);
      });

      it('resets at the year end: 2026-12-31 23:59:59 -> 2027-01-01 00:00:00', async () => {
        const p = await h.provision({ key: { monthlyLimit: 1 } });
        h.clock.set(istanbul(2026, 12, 31, 23, 59, 59));
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1073', 1);
        h.clock.set(istanbul(2027, 1, 1, 0, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        assertLimited(await balance(h, p.apiKey), 'TS-1073', 31 * 86400);
      });

      it('counts across the days of one month; Retry-After reaches the 1st of the next', async () => {
        const p = await h.provision({ key: { monthlyLimit: 2 } });
        h.clock.set(istanbul(2026, 2, 1, 0, 0, 0));
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        h.clock.set(istanbul(2026, 2, 20, 9, 30, 0));
        assert.deepEqual(await codes(h, p.apiKey, 1), ['TS-1040']);
        h.clock.set(istanbul(2026, 2, 28, 23, 0, 0));
        assertLimited(await balance(h, p.apiKey), 'TS-1073', 3600);
      });

      it('Retry-After from mid-month', async () => {
        const p = await h.provision({ key: { monthlyLimit: 1 } });
        await balance(h, p.apiKey); // 2026-03-15 12:00:00 Istanbul
        assertLimited(await balance(h, p.apiKey), 'TS-1073', (16 * 24 + 12) * 3600);
      });
    });

    it('when several limits are reached, the longest window is named with its wait', async () => {
      const p = await h.provision({ key: { hourlyLimit: 1, dailyLimit: 1 } });
      await balance(h, p.apiKey);
      assertLimited(await balance(h, p.apiKey), 'TS-1069', 12 * 3600);
    });

    it('a limit of 0 is no limit while another limit is set', async () => {
      const p = await h.provision({ key: { hourlyLimit: 0, dailyLimit: 3, monthlyLimit: 0 } });
      assert.deepEqual(await codes(h, p.apiKey, 4), ['TS-1040', 'TS-1040', 'TS-1040', 'TS-1069']);
    });

    it('rejected requests are not counted: after the window resets exactly N succeed again', async () => {
      // Were the rejections counted, the daily limit would be used up before the second hour.
      const p = await h.provision({ key: { hourlyLimit: 3, dailyLimit: 6 } });
      h.clock.set(istanbul(2026, 3, 15, 10, 0, 0));
      assert.deepEqual(await codes(h, p.apiKey, 8), [
        'TS-1040',
        'TS-1040',
        'TS-1040',
        'TS-1068',
        'TS-1068',
        'TS-1068',
        'TS-1068',
        'TS-1068',
      ]);
      h.clock.set(istanbul(2026, 3, 15, 11, 0, 0));
      assert.deepEqual(await codes(h, p.apiKey, 4), ['TS-1040', 'TS-1040', 'TS-1040', 'TS-1069']);
      h.clock.set(istanbul(2026, 3, 15, 12, 0, 0));
      assertLimited(await balance(h, p.apiKey), 'TS-1069', 12 * 3600);
      h.clock.set(istanbul(2026, 3, 16, 0, 0, 0));
      assert.deepEqual(await codes(h, p.apiKey, 4), ['TS-1040', 'TS-1040', 'TS-1040', 'TS-1068']);
    });

    it('requests rejected for the address or the key state are not counted', async () => {
      const p = await h.provision({ key: { hourlyLimit: 2, ipAllow: ['127.0.0.1'] } });
      for (let i = 0; i < 4; i++) assert.equal((await balance(h, p.apiKey, '192.0.2.1')).body.result_code, 'TS-1066');
      await valueOf(h.runtime.admin.changeKeyState(p.keyId, 'pause'));
      for (let i = 0; i < 4; i++) assert.equal((await balance(h, p.apiKey)).body.result_code, 'TS-1035');
      await valueOf(h.runtime.admin.changeKeyState(p.keyId, 'reactivate'));
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { status: 'Suspended' }, {}));
      for (let i = 0; i < 4; i++) assert.equal((await balance(h, p.apiKey)).body.result_code, 'TS-1030');
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { status: 'Active' }, {}));
      assert.deepEqual(await codes(h, p.apiKey, 3), ['TS-1040', 'TS-1040', 'TS-1068']);
    });

    it('rejected requests are not counted: permission, address, key state, fields, handler refusals', async () => {
      // Permission off: two refusals, then the permission is turned on and two requests pass.
      const p = await h.provision({
        key: { hourlyLimit: 2, permissions: { ...allPermissions(true), check_balance: false } },
      });
      assert.deepEqual(await codes(h, p.apiKey, 3), ['TS-1065', 'TS-1065', 'TS-1065']);
      const key = await valueOf(h.runtime.admin.key(p.keyId));
      await valueOf(h.runtime.admin.updateKey(p.keyId, { permissions: { ...key.permissions, check_balance: true } }));
      assert.deepEqual(await codes(h, p.apiKey, 3), ['TS-1040', 'TS-1040', 'TS-1068']);

      // Outside the allowlist, then allowed.
      const ip = await h.provision({ key: { hourlyLimit: 1, ipAllow: ['10.0.0.0/8'] } });
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await h.post('/balance/', { api_key: ip.apiKey }, { ip: '192.0.2.7' })).body.result_code,
          'TS-1066',
        );
      assert.equal((await h.post('/balance/', { api_key: ip.apiKey }, { ip: '10.1.2.3' })).body.result_code, 'TS-1040');

      // Paused, then reactivated; account suspended, then active again.
      const paused = await h.provision({ key: { hourlyLimit: 1 } });
      await valueOf(h.runtime.admin.changeKeyState(paused.keyId, 'pause'));
      assert.deepEqual(await codes(h, paused.apiKey, 2), ['TS-1035', 'TS-1035']);
      await valueOf(h.runtime.admin.changeKeyState(paused.keyId, 'reactivate'));
      await valueOf(h.runtime.admin.updateAccount(paused.accountId, { status: 'Suspended' }, {}));
      assert.deepEqual(await codes(h, paused.apiKey, 2), ['TS-1030', 'TS-1030']);
      await valueOf(h.runtime.admin.updateAccount(paused.accountId, { status: 'Active' }, {}));
      assert.deepEqual(await codes(h, paused.apiKey, 2), ['TS-1040', 'TS-1068']);

      // Invalid fields, and a send the handler refuses (sender ID not on the account).
      const sender = await h.provision({ key: { hourlyLimit: 1 } });
      const send = async (body: Record<string, unknown>): Promise<unknown> =>
        (await h.post('/sms/send', { api_key: sender.apiKey, ...body })).body.result_code;
      assert.equal(await send({ sentto: '05321234567', text: 'hi' }), 'TS-1051');
      assert.equal(await send({ sentto: '05321234567', title: 'NOPE', text: 'hi' }), 'TS-1028');
      assert.equal(await send({ sentto: '05321234567', title: 'ACME', text: 'hi', sms_lang: 0 }), 'TS-1024');
      assert.equal(await send({ sentto: '05321234567', title: 'ACME', text: 'hi', sms_lang: 0 }), 'TS-1068');
      // The limit is the key's, not the endpoint's.
      assert.equal((await h.post('/senderid/check', { api_key: sender.apiKey })).body.result_code, 'TS-1068');
    });

    it('a request refused by the per-minute send limit is not counted', async () => {
      const p = await h.provision({ account: { perMinuteLimit: 1 }, key: { hourlyLimit: 2 } });
      const send = async (): Promise<unknown> =>
        (
          await h.post('/sms/send', {
            api_key: p.apiKey,
            sentto: '05321234567',
            title: 'ACME',
            text: 'hi',
            sms_lang: 0,
          })
        ).body.result_code;
      assert.deepEqual([await send(), await send(), await send()], ['TS-1024', 'TS-1060', 'TS-1060']);
      assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1068']);
    });

    it('the limit is per key, shared by all endpoints', async () => {
      const a = await h.provision({ key: { hourlyLimit: 2 } });
      const other = await valueOf(h.runtime.admin.createKey(a.accountId, { ...defaultKeySettings, hourlyLimit: 2 }));
      assert.equal((await h.post('/senderid/check', { api_key: a.apiKey })).body.result_code, 'TS-1040');
      assert.equal((await balance(h, a.apiKey)).body.result_code, 'TS-1040');
      assert.equal((await balance(h, a.apiKey)).body.result_code, 'TS-1068');
      assert.equal((await h.post('/senderid/check', { api_key: a.apiKey })).body.result_code, 'TS-1068');
      assert.deepEqual(await codes(h, other.api_key, 3), ['TS-1040', 'TS-1040', 'TS-1068']);
    });

    it('the key check is neither limited nor counted', async () => {
      const p = await h.provision({ key: { hourlyLimit: 1 } });
      for (let i = 0; i < 3; i++)
        assert.equal((await h.post('/auth/post/check/', { api_key: p.apiKey })).body.result_code, 'TS-1000');
      assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1068']);
      assert.equal((await h.post('/auth/post/check/', { api_key: p.apiKey })).body.result_code, 'TS-1000');
    });

    it('a raised limit applies at once within the window', async () => {
      const p = await h.provision({ key: { hourlyLimit: 1 } });
      assert.deepEqual(await codes(h, p.apiKey, 2), ['TS-1040', 'TS-1068']);
      await valueOf(h.runtime.admin.updateKey(p.keyId, { hourlyLimit: 3 }));
      assert.deepEqual(await codes(h, p.apiKey, 3), ['TS-1040', 'TS-1040', 'TS-1068']);
    });

    it('a key with no limits is unaffected', async () => {
      const p = await h.provision();
      const all = await codes(h, p.apiKey, 60);
      assert.ok(all.every((c) => c === 'TS-1040'));
      for (let i = 0; i < 10; i++)
        assert.equal((await h.post('/senderid/check', { api_key: p.apiKey })).body.result_code, 'TS-1040');
      h.clock.set(istanbul(2026, 3, 31, 23, 59, 59));
      assert.deepEqual(await codes(h, p.apiKey, 3), ['TS-1040', 'TS-1040', 'TS-1040']);
    });
  });
}
