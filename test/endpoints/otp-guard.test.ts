/**
 * The OTP pumping guard (issues 36 and 42), through HTTP on both stores: countries (every
 * one by default, narrowed by the key or, beyond the customer's reach, by the provider for
 * the account) and velocity (per number per hour and day, the cooldown, the rise rule on a
 * destination prefix, an absolute limit a prefix when the key sets one). The defaults take
 * what the spec accepts and what a bank sends. Every refusal is clear, charges nothing and
 * is recorded.
 */
import { beforeEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { noOtpSettings } from '../../src/domain/otp-guard.js';
import type { OtpSettings } from '../../src/domain/otp-guard.js';
import { valueOf } from '../helpers/results.js';

const mobile = '905321234567';

function send(h: Harness, apiKey: string, to = mobile): Promise<Answer> {
  return h.post('/otp/send', { api_key: apiKey, mobile: to });
}

/** `count` requests, 50 at a time, their answers in order. */
async function inChunks(count: number, one: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let from = 0; from < count; from += 50)
    answers.push(...(await Promise.all(Array.from({ length: Math.min(50, count - from) }, (_, i) => one(from + i)))));
  return answers;
}

function assertRefused(answer: Answer, code: string, status: number, retryAfter?: number): void {
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false, answer.raw);
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal('otp_code' in answer.body, false);
  if (retryAfter !== undefined) assert.equal(answer.headers['retry-after'], String(retryAfter));
}

async function balances(h: Harness, accountId: number): Promise<[number, number]> {
  const a = await valueOf(h.runtime.admin.account(accountId));
  return [a.balanceMain, a.balanceInternational];
}

async function settle(h: Harness, keyId: number, settings: Partial<OtpSettings>): Promise<void> {
  await h.runtime.store.otp.saveSettings(keyId, { ...noOtpSettings, ...settings }, h.clock.now());
}

for (const dialect of testDialects()) {
  describeOn(dialect, `OTP pumping guard (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    beforeEach(() => h.clock.set(defaultNow));

    it('sends codes to every country by default: +1 202 555 0123 and +44 7700 900123 go (the spec takes 11 to 15 digits)', async () => {
      const p = await h.provision();
      for (const mobile of ['+1 202 555 0123', '+44 7700 900123', '4915112345678'])
        assert.equal((await send(h, p.apiKey, mobile)).body.result_code, 'TS-1024', mobile);
      assert.deepEqual(await balances(h, p.accountId), [1000, 97]);
    });

    it('refuses what the key narrowed, and what the provider narrowed the account to, as TS-1094 (403), uncharged', async () => {
      const p = await h.provision();
      await settle(h, p.keyId, { countries: ['90', '49'] });
      assert.equal((await send(h, p.apiKey, '4915112345678')).body.result_code, 'TS-1024');
      const refused = await send(h, p.apiKey, '447911123456');
      assertRefused(refused, 'TS-1094', 403);
      assert.match(
        String(refused.body.result_message),
        /This key may not send codes to \+44 numbers \(its OTP countries: \+90, \+49\)/,
      );
      assert.deepEqual(await balances(h, p.accountId), [1000, 99]);
      // The provider's narrowing of the account holds whatever the key's countries say.
      await h.runtime.store.otp.saveAccountCountries(p.accountId, ['90'], h.clock.now());
      const account = await send(h, p.apiKey, '4915112345678');
      assertRefused(account, 'TS-1094', 403);
      assert.match(String(account.body.result_message), /This account may not send codes to \+49 numbers/);
      assert.equal((await send(h, p.apiKey)).body.result_code, 'TS-1024');
      assert.deepEqual(await balances(h, p.accountId), [999, 99]);
      const refusals = await h.runtime.store.otp.refusals(p.accountId, 10);
      assert.deepEqual(refusals.map((r) => [r.reason, r.destination]).sort(), [
        ['country', '447911123456'],
        ['country', '4915112345678'],
      ]);
    });

    it('allows 5 codes an hour and 10 a day to one number (TS-1095, 429, Retry-After), uncharged', async () => {
      const p = await h.provision();
      for (let i = 0; i < 5; i += 1) assert.equal((await send(h, p.apiKey)).body.result_code, 'TS-1024');
      assertRefused(await send(h, p.apiKey), 'TS-1095', 429, 3600);
      assert.deepEqual(await balances(h, p.accountId), [995, 100]);
      // Another number is not held back.
      assert.equal((await send(h, p.apiKey, '905321234568')).body.result_code, 'TS-1024');
      h.clock.set(defaultNow + 3_600_001);
      for (let i = 0; i < 5; i += 1) assert.equal((await send(h, p.apiKey)).body.result_code, 'TS-1024');
      const day = await send(h, p.apiKey);
      assertRefused(day, 'TS-1095', 429, 86_400);
      assert.match(String(day.body.result_message), /a day/);
      assert.deepEqual(await balances(h, p.accountId), [989, 100]);
    });

    it('keeps a cooldown between two codes to one number when the key sets one', async () => {
      const p = await h.provision();
      await settle(h, p.keyId, { cooldownSeconds: 60 });
      assert.equal((await send(h, p.apiKey)).body.result_code, 'TS-1024');
      h.clock.set(defaultNow + 45_000);
      assertRefused(await send(h, p.apiKey), 'TS-1095', 429, 15);
      h.clock.set(defaultNow + 60_000);
      assert.equal((await send(h, p.apiKey)).body.result_code, 'TS-1024');
    });

    it('limits codes a minute to one destination prefix only when the key sets an absolute limit', async () => {
      const p = await h.provision();
      await settle(h, p.keyId, { perPrefixMinute: 3 });
      for (const n of ['905321000001', '905321000002', '905329999999'])
        assert.equal((await send(h, p.apiKey, n)).body.result_code, 'TS-1024');
      assertRefused(await send(h, p.apiKey, '905320000004'), 'TS-1095', 429, 60);
      assert.equal((await send(h, p.apiKey, '905420000004')).body.result_code, 'TS-1024');
      h.clock.set(defaultNow + 60_000);
      assert.equal((await send(h, p.apiKey, '905320000004')).body.result_code, 'TS-1024');
    });

    it('takes hundreds of codes a minute to Turkcell numbers (90532) with the defaults', async () => {
      const p = await h.provision({ account: { balanceMain: 2000 } });
      const answers = await inChunks(600, (i) => send(h, p.apiKey, `90532${String(i).padStart(7, '0')}`));
      assert.deepEqual(
        answers.filter((a) => a.body.result_code !== 'TS-1024').map((a) => a.raw),
        [],
      );
      assert.deepEqual(await balances(h, p.accountId), [1400, 100]);
    });

    it('refuses a sudden rise to a prefix above its floor until the minute ends, and that prefix only', async () => {
      const p = await h.provision();
      await settle(h, p.keyId, { prefixRiseMin: 20, prefixRise: 5 });
      h.clock.set(defaultNow + 15_000);
      for (let i = 0; i < 20; i += 1)
        assert.equal((await send(h, p.apiKey, `9053200000${String(i).padStart(2, '0')}`)).body.result_code, 'TS-1024');
      const refused = await send(h, p.apiKey, '905320000020');
      assertRefused(refused, 'TS-1095', 429, 45);
      assert.match(String(refused.body.result_message), /more than 5 times this key's usual rate/);
      assert.equal((await send(h, p.apiKey, '905330000020')).body.result_code, 'TS-1024');
      assert.deepEqual(await balances(h, p.accountId), [979, 100]);
      // The next minute is judged afresh, against a baseline that now holds the last one.
      h.clock.set(defaultNow + 60_000);
      assert.equal((await send(h, p.apiKey, '905320000020')).body.result_code, 'TS-1024');
      const refusals = await h.runtime.store.otp.refusals(p.accountId, 10);
      assert.deepEqual(
        refusals.map((r) => [r.reason, r.destination]),
        [['prefix-rise', '905320000020']],
      );
    });

    it('counts per key: another key of the account has its own counts', async () => {
      const p = await h.provision();
      const other = await valueOf(
        h.runtime.admin.createKey(p.accountId, {
          ...((await h.runtime.store.keys.getKey(p.keyId)) ?? assert.fail('no key')),
        }),
      );
      for (let i = 0; i < 5; i += 1) await send(h, p.apiKey);
      assertRefused(await send(h, p.apiKey), 'TS-1095', 429);
      assert.equal((await send(h, other.api_key)).body.result_code, 'TS-1024');
    });
  });
}
