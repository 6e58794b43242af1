/**
 * POST /otp/detailed against the spec and the choices docs/decisions.md records for its
 * "not shown" codes: the caller's text and approved sender ID, TS-CODE and TS-L, lang (and
 * never sms_lang), the reserved sender IDs in any case, balance, and the error rows that are
 * its own (key, state, address, permission and body rows: test/http/endpoint-table).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { reservedOtpSenders } from '../../src/domain/sender-title.js';
import { createHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

const path = '/otp/detailed';
const mobile = '905321234567';
const text = 'Your ACME code: TS-CODE';

function assertFailure(answer: Answer, code: string, status: number): void {
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false);
  assert.equal(typeof answer.body.result_message, 'string');
  assert.equal('otp_code' in answer.body, false);
}

function assertSent(answer: Answer): { smsId: number; code: number } {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true);
  assert.equal(answer.body.result_code, 'TS-1024');
  assert.equal(typeof answer.body.sms_id, 'number');
  assert.equal(typeof answer.body.otp_code, 'number');
  return { smsId: answer.body.sms_id as number, code: answer.body.otp_code as number };
}

async function claimed(h: Harness, id: number): Promise<{ text: string; sender: string; recipient: string }> {
  const now = h.clock.now();
  const message = (await h.runtime.store.queue.claimDue(now, 10_000, now + 60_000)).find((m) => m.id === id);
  assert.ok(message, `message ${id} is queued`);
  return message;
}

/** Mixed-case spellings of a reserved sender ID: upper, capitalised and alternating. */
function mixedCase(title: string): string[] {
  const alternating = [...title].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join('');
  return [title.toUpperCase(), title.charAt(0).toUpperCase() + title.slice(1), alternating];
}

describe('POST /otp/detailed', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());
  beforeEach(() => h.clock.set(defaultNow));

  describe('HTTP 200 TS-1024', () => {
    it('sends the text with every TS-CODE replaced and TS-L as a line break, from the title', async () => {
      const p = await h.provision();
      const answer = await h.post(path, {
        api_key: p.apiKey,
        mobile,
        title: 'ACME',
        text: 'Code TS-CODETS-LAgain: TS-CODE',
        lang: 0,
      });
      const { smsId, code } = assertSent(answer);
      assert.equal(answer.body.number_of_sms, 1);
      assert.equal(answer.body.sms_lang, 'English');
      assert.equal(answer.body.sandbox, false);
      assert.equal(String(code).length, 4);
      const message = await claimed(h, smsId);
      assert.equal(message.text, `Code ${code}\nAgain: ${code}`);
      assert.equal(message.sender, 'ACME');
      assert.equal(message.recipient, mobile);
      const status = await h.post('/sms/status', { api_key: p.apiKey, sms_id: smsId });
      assert.equal(status.body.sender_id, 'ACME');
    });

    it('counts and charges the SMS of the text; lang picks the table and the label, Arabic by default', async () => {
      const p = await h.provision();
      const long = `TS-CODE ${'a'.repeat(100)}`;
      const english = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text: long, lang: 0 });
      assertSent(english);
      assert.equal(english.body.number_of_sms, 1);
      const arabic = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text: long });
      assertSent(arabic);
      assert.equal(arabic.body.number_of_sms, 2);
      assert.equal(arabic.body.sms_lang, 'Arabic');
      const turkish = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text: long, lang: '1' });
      assert.equal(turkish.body.sms_lang, 'Turkish');
      assert.equal((await valueOf(h.runtime.admin.account(p.accountId))).balanceMain, 1000 - 4);
    });

    it('does not read sms_lang', async () => {
      const p = await h.provision();
      const ignored = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text, sms_lang: 0 });
      assertSent(ignored);
      assert.equal(ignored.body.sms_lang, 'Arabic');
      const invalid = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text, sms_lang: 9, lang: 1 });
      assertSent(invalid);
      assert.equal(invalid.body.sms_lang, 'Turkish');
    });

    it('gives 4, 5 or 6 digits, 4 for anything else', async () => {
      const p = await h.provision();
      for (const [digits, length] of [
        [5, 5],
        [6, 6],
        [9, 4],
        ['5', 5],
        [undefined, 4],
      ] as const) {
        const { code } = assertSent(await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text, digits }));
        assert.equal(String(code).length, length);
        assert.notEqual(String(code)[0], '0');
      }
    });

    it('answers "sandbox": true for a sandbox key', async () => {
      const p = await h.provision({ key: { sandbox: true } });
      const answer = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text });
      assertSent(answer);
      assert.equal(answer.body.sandbox, true);
    });

    it('accepts the 05..., 5... and +90 forms of a Türkiye mobile number', async () => {
      const p = await h.provision();
      for (const raw of ['05321234567', '5321234567', '+90 532 123 45 67', '00905321234567']) {
        const { smsId } = assertSent(await h.post(path, { api_key: p.apiKey, mobile: raw, title: 'ACME', text }));
        assert.equal((await claimed(h, smsId)).recipient, mobile);
      }
    });

    it('takes a title of 11 units with Turkish letters counting two, and a text of 2,000 characters', async () => {
      const p = await h.provision({ senderIds: [{ title: 'ŞİRKETABC' }] });
      assertSent(
        await h.post(path, { api_key: p.apiKey, mobile, title: 'ŞİRKETABC', text: `TS-CODE${'x'.repeat(1993)}` }),
      );
    });
  });

  describe('HTTP 400: validation', () => {
    it('TS-1025: mobile missing or under 7 characters', async () => {
      const p = await h.provision();
      for (const value of [undefined, '', '905321', null])
        assertFailure(await h.post(path, { api_key: p.apiKey, mobile: value, title: 'ACME', text }), 'TS-1025', 400);
    });

    it('TS-1034: mobile not a Türkiye mobile number 905XXXXXXXXX', async () => {
      const p = await h.provision();
      for (const value of ['902121234567', '4915112345678', '90532123456', '9053212345678', '0532123456a']) {
        const answer = await h.post(path, { api_key: p.apiKey, mobile: value, title: 'ACME', text });
        assertFailure(answer, 'TS-1034', 400);
        assert.match(String(answer.body.result_message), /905XXXXXXXXX/);
      }
    });

    it('TS-1051: title missing; TS-1029: title over 11 units', async () => {
      const p = await h.provision();
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, text }), 'TS-1051', 400);
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: '', text }), 'TS-1051', 400);
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: 'ABCDEFGHIJKL', text }), 'TS-1029', 400);
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: 'ŞİRKETABCD', text }), 'TS-1029', 400);
    });

    it('TS-1028: every reserved sender ID in mixed case, even when approved on the account', async () => {
      const titles = [...reservedOtpSenders].flatMap(mixedCase);
      const p = await h.provision({ senderIds: [...titles, 'TİTLE', ' Sender '].map((title) => ({ title })) });
      for (const title of [...titles, 'TİTLE', ' Sender ']) {
        const answer = await h.post(path, { api_key: p.apiKey, mobile, title, text });
        assertFailure(answer, 'TS-1028', 400);
        assert.match(String(answer.body.result_message), /reserved/, title);
      }
      assert.equal(reservedOtpSenders.size, 13);
    });

    it('TS-1028: sender ID not approved on the account (case-sensitive)', async () => {
      const p = await h.provision({
        senderIds: [
          { title: 'ACME' },
          { title: 'PENDING', status: 'pending' },
          { title: 'REJECTED', status: 'rejected' },
        ],
      });
      for (const title of ['PENDING', 'REJECTED', 'OTHER', 'acme', 'OTPSMS']) {
        assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title, text }), 'TS-1028', 400);
      }
      // Another account's approved sender ID is not this account's.
      await h.provision({ senderIds: [{ title: 'THEIRS' }] });
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: 'THEIRS', text }), 'TS-1028', 400);
    });

    it('TS-1026: text missing, blank, over 2,000 characters or without TS-CODE in capitals', async () => {
      const p = await h.provision();
      for (const value of [undefined, '', '   ', `TS-CODE${'x'.repeat(1994)}`, 12]) {
        assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text: value }), 'TS-1026', 400);
      }
      for (const value of ['Your code', 'Your code ts-code', 'Your code TS-Code', 'TS - CODE']) {
        const answer = await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text: value });
        assertFailure(answer, 'TS-1026', 400);
        assert.match(String(answer.body.result_message), /TS-CODE/);
      }
    });

    it('TS-1033: lang not 0, 1 or 2', async () => {
      const p = await h.provision();
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text, lang: 3 }), 'TS-1033', 400);
      assertFailure(await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text, lang: 'en' }), 'TS-1033', 400);
    });
  });

  describe('HTTP 403: balance', () => {
    it('TS-1027: balance does not cover the SMS count; nothing charged', async () => {
      const p = await h.provision({ account: { balanceMain: 1 } });
      assertFailure(
        await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text: `TS-CODE ${'ü'.repeat(100)}` }),
        'TS-1027',
        403,
      );
      assert.equal((await valueOf(h.runtime.admin.account(p.accountId))).balanceMain, 1);
      assertSent(await h.post(path, { api_key: p.apiKey, mobile, title: 'ACME', text }));
      assert.equal((await valueOf(h.runtime.admin.account(p.accountId))).balanceMain, 0);
    });
  });
});
