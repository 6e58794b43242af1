/**
 * POST /otp/send against the spec: the generated code, the three templates with the
 * account's brand, the OTPSMS sender, charging, /sms/status, sandbox keys, lang/sms_lang,
 * and the rows of its error table that are its own, codes and statuses written out (the
 * key, state, address, permission and body rows are tested from the endpoint table in
 * test/http/endpoint-table).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { otpTemplate } from '../../src/domain/otp.js';
import { OtpService } from '../../src/services/otp-service.js';
import { noOtpSettings } from '../../src/domain/otp-guard.js';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

const path = '/otp/send';
const mobile = '05321234567';

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('otp_code' in answer.body, false);
  assert.equal('sms_id' in answer.body, false);
}

function assertSent(answer: Answer): { smsId: number; code: number } {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true);
  assert.equal(answer.body.result_code, 'TS-1024');
  assert.equal(typeof answer.body.sms_id, 'number');
  assert.equal(typeof answer.body.otp_code, 'number');
  return { smsId: answer.body.sms_id as number, code: answer.body.otp_code as number };
}

/** What the carrier would be given for a message: claims the due messages and picks one. */
async function claimed(h: Harness, id: number): Promise<{ text: string; sender: string; recipient: string }> {
  const now = h.clock.now();
  const messages = await h.runtime.store.queue.claimDue(now, 10_000, now + 60_000);
  const message = messages.find((m) => m.id === id);
  assert.ok(message, `message ${id} is queued`);
  return message;
}

/** Lifts a key's OTP velocity limits, for tests that send many codes to one number. */
async function unlimited(h: Harness, keyId: number): Promise<void> {
  const off = { perNumberHour: 0, perNumberDay: 0, perPrefixMinute: 0, prefixRise: 0, cooldownSeconds: 0 };
  await h.runtime.store.otp.saveSettings(keyId, { ...noOtpSettings, ...off }, h.clock.now());
}

describe('POST /otp/send', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());
  beforeEach(() => h.clock.set(defaultNow));

  describe('HTTP 200 TS-1024', () => {
    it('sends a 4-digit code from OTPSMS (not an approved sender of the account), charges 1 SMS, sandbox false', async () => {
      const p = await h.provision({ senderIds: [] });
      const { smsId, code } = assertSent(await h.post(path, { api_key: p.apiKey, mobile }));
      assert.equal(String(code).length, 4);
      const answer = await h.post(path, { api_key: p.apiKey, mobile });
      assert.equal(answer.body.sandbox, false);
      const message = await claimed(h, smsId);
      assert.equal(message.sender, 'OTPSMS');
      assert.equal(message.recipient, '905321234567');
      assert.equal((await valueOf(h.runtime.admin.account(p.accountId))).balanceMain, 998);
    });

    it('is answered by /sms/status with the OTPSMS sender', async () => {
      const p = await h.provision();
      const { smsId } = assertSent(await h.post(path, { api_key: p.apiKey, mobile }));
      const status = await h.post('/sms/status', { api_key: p.apiKey, sms_id: smsId });
      assert.equal(status.status, 200, status.raw);
      assert.equal(status.body.result_code, 'TS-1022');
      assert.equal(status.body.sender_id, 'OTPSMS');
      assert.equal(status.body.sms_balance, '1');
    });

    it('answers "sandbox": true for a sandbox key', async () => {
      const p = await h.provision({ key: { sandbox: true } });
      const answer = await h.post(path, { api_key: p.apiKey, mobile });
      assertSent(answer);
      assert.equal(answer.body.sandbox, true);
    });

    it('writes the English, Turkish and Arabic templates with the account brand', async () => {
      const p = await h.provision({ account: { otpBrand: 'Haberci Shop' } });
      const phrases = { 0: 'Your activation code is:', 1: 'Aktivasyon kodunuz:', 2: 'رمز التفعيل الخاص بك:' } as const;
      for (const lang of [0, 1, 2] as const) {
        const { smsId, code } = assertSent(await h.post(path, { api_key: p.apiKey, mobile, sms_lang: lang }));
        const message = await claimed(h, smsId);
        assert.equal(message.text, `${phrases[lang]}${code} Haberci Shop`);
        assert.equal(message.text, otpTemplate(lang, code, 'Haberci Shop'));
      }
    });

    it('leaves out an empty brand and its space', async () => {
      const p = await h.provision({ account: { otpBrand: '' } });
      const { smsId, code } = assertSent(await h.post(path, { api_key: p.apiKey, mobile, sms_lang: 0 }));
      assert.equal((await claimed(h, smsId)).text, `Your activation code is:${code}`);
    });

    it('reads lang as sms_lang, and sms_lang wins when both are sent; Arabic by default', async () => {
      const p = await h.provision();
      // Many codes to one number: the OTP guard's velocity limits (issue 36) are lifted.
      await unlimited(h, p.keyId);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'رمز التفعيل'],
        [{ lang: 0 }, 'Your activation code'],
        [{ sms_lang: 1 }, 'Aktivasyon kodunuz'],
        [{ sms_lang: 1, lang: 0 }, 'Aktivasyon kodunuz'],
        [{ lang: 0, sms_lang: 2 }, 'رمز التفعيل'],
        [{ lang: '1' }, 'Aktivasyon kodunuz'],
      ];
      for (const [fields, phrase] of cases) {
        const { smsId } = assertSent(await h.post(path, { api_key: p.apiKey, mobile, ...fields }));
        assert.ok((await claimed(h, smsId)).text.startsWith(phrase), JSON.stringify(fields));
      }
      // sms_lang wins even when it is the invalid one.
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, sms_lang: 7, lang: 0 }), 'TS-1033', 400);
    });

    it('gives 4, 5 or 6 digits; any other digits value gives 4', async () => {
      const p = await h.provision();
      // Many codes to one number: the OTP guard's velocity limits (issue 36) are lifted.
      await unlimited(h, p.keyId);
      const cases: Array<[unknown, number]> = [
        [4, 4],
        [5, 5],
        [6, 6],
        [3, 4],
        [7, 4],
        [0, 4],
        [-5, 4],
        [5.5, 4],
        ['6', 6],
        [null, 4],
        ['abc', 4],
        [[5], 4],
      ];
      for (const [digits, length] of cases) {
        const { code } = assertSent(await h.post(path, { api_key: p.apiKey, mobile, digits }));
        assert.equal(String(code).length, length, `digits ${JSON.stringify(digits)}`);
      }
    });

    it('converts the 05..., 5..., 00... and +90 forms and accepts international numbers', async () => {
      const p = await h.provision();
      const cases: Array<[string, string]> = [
        ['05321234567', '905321234567'],
        ['5321234567', '905321234567'],
        ['00905321234567', '905321234567'],
        ['+90 (532) 123-45-67', '905321234567'],
        ['905321234567', '905321234567'],
        ['4915112345678', '4915112345678'],
        ['0044 7911 123456', '447911123456'],
        // The spec takes any number of 11 to 15 digits: codes go to every country by default (issue 42).
        ['+1 202 555 0123', '12025550123'],
        ['+44 7700 900123', '447700900123'],
      ];
      for (const [raw, stored] of cases) {
        const { smsId } = assertSent(await h.post(path, { api_key: p.apiKey, mobile: raw }));
        assert.equal((await claimed(h, smsId)).recipient, stored, raw);
      }
      // International numbers are charged to the international balance.
      const account = await valueOf(h.runtime.admin.account(p.accountId));
      assert.equal(account.balanceMain, 1000 - 5);
      assert.equal(account.balanceInternational, 100 - 4);
    });

    it('draws codes of the right length, never starting with 0, spread evenly (CSPRNG, many draws)', async () => {
      const p = await h.provision({ account: { balanceMain: 5000 } });
      // Many codes to one number: the OTP guard's velocity limits (issue 36) are lifted.
      await unlimited(h, p.keyId);
      const draws = 1800;
      const firstDigits = new Array<number>(10).fill(0);
      const lastDigits = new Array<number>(10).fill(0);
      for (let i = 0; i < draws; i++) {
        const { code } = assertSent(await h.post(path, { api_key: p.apiKey, mobile }));
        const text = String(code);
        assert.equal(text.length, 4);
        assert.notEqual(text[0], '0');
        firstDigits[Number(text[0])] = (firstDigits[Number(text[0])] ?? 0) + 1;
        lastDigits[Number(text[3])] = (lastDigits[Number(text[3])] ?? 0) + 1;
      }
      const chiSquare = (counts: number[], cells: number): number =>
        counts.reduce((sum, seen) => sum + (seen - draws / cells) ** 2 / (draws / cells), 0);
      // Loose bounds (p < 1e-6 for 8 and 9 degrees of freedom): a real bias is far above them.
      assert.ok(chiSquare(firstDigits.slice(1), 9) < 46, `first digits ${firstDigits.join(',')}`);
      assert.ok(chiSquare(lastDigits, 10) < 48, `last digits ${lastDigits.join(',')}`);
      for (const digits of [5, 6]) {
        for (let i = 0; i < 200; i++) {
          const text = String(assertSent(await h.post(path, { api_key: p.apiKey, mobile, digits })).code);
          assert.equal(text.length, digits);
          assert.notEqual(text[0], '0');
        }
      }
    });
  });

  describe('HTTP 400', () => {
    it('TS-1025: mobile missing, not a string or under 7 characters', async () => {
      const p = await h.provision();
      for (const value of [undefined, '', '123456', '  12345  ', { n: 1 }, true]) {
        assertFailure(await h.post(path, { api_key: p.apiKey, mobile: value }), 'TS-1025', 400);
      }
    });

    it('TS-1033: sms_lang / lang not 0, 1 or 2', async () => {
      const p = await h.provision();
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, sms_lang: 3 }), 'TS-1033', 400);
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, lang: 'tr' }), 'TS-1033', 400);
    });
  });

  describe('HTTP 403', () => {
    it('TS-1034: not 11 to 15 digits after clean-up', async () => {
      const p = await h.provision();
      for (const value of ['1234567', '053212345', '1234567890', '1234567890123456', '0532abc4567', '90532123456x']) {
        assertFailure(await h.post(path, { api_key: p.apiKey, mobile: value }), 'TS-1034', 403);
      }
    });

    it('TS-1027: balance does not cover the SMS; nothing is charged', async () => {
      const p = await h.provision({ account: { balanceMain: 0, balanceInternational: 0 } });
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile }), 'TS-1027', 403);
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile: '4915112345678' }), 'TS-1027', 403);
      const account = await valueOf(h.runtime.admin.account(p.accountId));
      assert.equal(account.balanceMain, 0);
    });

    it('TS-5000: the message could not be saved; nothing charged, no code in the answer', async () => {
      const p = await h.provision();
      const real = h.runtime.services.otp;
      h.runtime.services.otp = new OtpService(
        {
          isApprovedSender: async () => true,
          accept: async () => {
            throw new Error('disk full');
          },
        },
        (min) => min,
        h.runtime.store,
        h.clock,
      );
      try {
        const answer = await h.post(path, { api_key: p.apiKey, mobile });
        assertFailure(answer, 'TS-5000', 403);
        assert.doesNotMatch(answer.raw, /disk full|1000/);
      } finally {
        h.runtime.services.otp = real;
      }
      assert.equal((await valueOf(h.runtime.admin.account(p.accountId))).balanceMain, 1000);
    });
  });

  it('never writes the code to the logs', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: h.runtime.services,
      requestsPerSecond: 0,
      logger: pino({ level: 'trace' }, sink),
    });
    try {
      const p = await h.provision();
      const response = await app.inject({
        method: 'POST',
        url: path,
        payload: { api_key: p.apiKey, mobile, digits: 6 },
      });
      const code = String((JSON.parse(response.body) as { otp_code: number }).otp_code);
      assert.equal(code.length, 6);
      assert.equal(logged.includes(code), false);
    } finally {
      await app.close();
    }
  });
});
