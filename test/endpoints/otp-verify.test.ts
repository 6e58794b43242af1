/**
 * POST /otp/verify (issue 36), through HTTP on both stores: the right code once, wrong
 * tries until the code is dead, expiry (default, per key and per send), another account's
 * or a non-OTP sms_id, sandbox keys, /otp/detailed codes, the otp.verified event, the
 * validation answers, and the code kept only as a keyed hash.
 */
import { beforeEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { KeySettings } from '../../src/ports/keys.js';
import { noOtpSettings } from '../../src/domain/otp-guard.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

const mobile = '05321234567';

async function sendOtp(
  h: Harness,
  apiKey: string,
  extra: Record<string, unknown> = {},
): Promise<{ smsId: number; code: number }> {
  const answer = await h.post('/otp/send', { api_key: apiKey, mobile, ...extra });
  assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
  return { smsId: answer.body.sms_id as number, code: answer.body.otp_code as number };
}

function verify(h: Harness, apiKey: string, smsId: number, code: unknown): Promise<Answer> {
  return h.post('/otp/verify', { api_key: apiKey, sms_id: smsId, code });
}

function assertChecked(answer: Answer, code: string, verified: boolean, triesLeft: number): void {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(answer.body.verified, verified, answer.raw);
  assert.equal(answer.body.tries_left, triesLeft, answer.raw);
}

/** A code of the same length that is not the one sent. */
function wrong(code: number): number {
  return code === 9999 ? 1000 : code + 1;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `POST /otp/verify (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    beforeEach(() => h.clock.set(defaultNow));

    it('verifies the right code once (TS-1064, verified true); again it is used (TS-1092)', async () => {
      const p = await h.provision();
      const { smsId, code } = await sendOtp(h, p.apiKey);
      assertChecked(await verify(h, p.apiKey, smsId, code), 'TS-1064', true, 5);
      assertChecked(await verify(h, p.apiKey, smsId, code), 'TS-1092', false, 5);
      // The code as text, as a form sends it, is the same code.
      const second = await sendOtp(h, p.apiKey);
      assertChecked(await verify(h, p.apiKey, second.smsId, ` ${second.code} `), 'TS-1064', true, 5);
    });

    it('counts wrong tries (TS-1090, tries_left) and after five the right code is refused (TS-1093)', async () => {
      const p = await h.provision();
      const { smsId, code } = await sendOtp(h, p.apiKey);
      for (let left = 4; left >= 0; left -= 1)
        assertChecked(await verify(h, p.apiKey, smsId, wrong(code)), 'TS-1090', false, left);
      assertChecked(await verify(h, p.apiKey, smsId, code), 'TS-1093', false, 0);
    });

    it('expires after 5 minutes by default (TS-1091), without counting a try', async () => {
      const p = await h.provision();
      const { smsId, code } = await sendOtp(h, p.apiKey);
      h.clock.set(defaultNow + 299_000);
      const fresh = await sendOtp(h, p.apiKey);
      assertChecked(await verify(h, p.apiKey, fresh.smsId, fresh.code), 'TS-1064', true, 5);
      h.clock.set(defaultNow + 300_000);
      assertChecked(await verify(h, p.apiKey, smsId, code), 'TS-1091', false, 5);
    });

    it('takes validity from the send, else from the key, else 5 minutes', async () => {
      const p = await h.provision();
      await h.runtime.store.otp.saveSettings(
        p.keyId,
        { ...noOtpSettings, validitySeconds: 60, maxTries: 2 },
        defaultNow,
      );
      const byKey = await sendOtp(h, p.apiKey);
      const bySend = await sendOtp(h, p.apiKey, { validity: 600 });
      h.clock.set(defaultNow + 61_000);
      assertChecked(await verify(h, p.apiKey, byKey.smsId, byKey.code), 'TS-1091', false, 2);
      assertChecked(await verify(h, p.apiKey, bySend.smsId, wrong(bySend.code)), 'TS-1090', false, 1);
      assertChecked(await verify(h, p.apiKey, bySend.smsId, bySend.code), 'TS-1064', true, 1);
    });

    it('refuses a validity outside 30 to 3600 seconds (TS-1033, 400) and charges nothing', async () => {
      const p = await h.provision();
      for (const validity of [29, 3601, 'soon', 1.5]) {
        const answer = await h.post('/otp/send', { api_key: p.apiKey, mobile, validity });
        assert.equal(answer.status, 400, answer.raw);
        assert.equal(answer.body.result_code, 'TS-1033', answer.raw);
      }
      assert.equal((await valueOf(h.runtime.admin.account(p.accountId))).balanceMain, 1000);
    });

    it("answers TS-1020 (403) for another account's OTP, a non-OTP message and an unknown id", async () => {
      const owner = await h.provision();
      const other = await h.provision();
      const { smsId, code } = await sendOtp(h, owner.apiKey);
      const stranger = await verify(h, other.apiKey, smsId, code);
      assert.equal(stranger.status, 403, stranger.raw);
      assert.equal(stranger.body.result, false);
      assert.equal(stranger.body.result_code, 'TS-1020');
      assert.equal('verified' in stranger.body, false);
      const sms = await h.post('/sms/send', { api_key: owner.apiKey, title: 'ACME', text: 'hello', sentto: mobile });
      assert.equal(sms.body.result_code, 'TS-1024', sms.raw);
      assert.equal((await verify(h, owner.apiKey, sms.body.sms_id as number, 1234)).body.result_code, 'TS-1020');
      assert.equal((await verify(h, owner.apiKey, 999_999_999, 1234)).body.result_code, 'TS-1020');
      // Nothing was counted against the owner's code.
      assertChecked(await verify(h, owner.apiKey, smsId, code), 'TS-1064', true, 5);
    });

    it('keeps sandbox codes to sandbox keys and live codes to live keys', async () => {
      const p = await h.provision();
      const sandbox = await valueOf(
        h.runtime.admin.createKey(p.accountId, {
          ...(await keySettings(h, p.keyId)),
          sandbox: true,
        }),
      );
      const test = await sendOtp(h, sandbox.api_key);
      const live = await sendOtp(h, p.apiKey);
      assert.equal((await verify(h, p.apiKey, test.smsId, test.code)).body.result_code, 'TS-1020');
      assert.equal((await verify(h, sandbox.api_key, live.smsId, live.code)).body.result_code, 'TS-1020');
      assertChecked(await verify(h, sandbox.api_key, test.smsId, test.code), 'TS-1064', true, 5);
      assertChecked(await verify(h, p.apiKey, live.smsId, live.code), 'TS-1064', true, 5);
    });

    it('verifies codes of /otp/detailed too', async () => {
      const p = await h.provision();
      const sent = await h.post('/otp/detailed', {
        api_key: p.apiKey,
        mobile: '905321234567',
        title: 'ACME',
        text: 'Kod: TS-CODE',
        digits: 6,
        validity: 120,
      });
      assert.equal(sent.body.result_code, 'TS-1024', sent.raw);
      const code = sent.body.otp_code as number;
      assert.equal(String(code).length, 6);
      assertChecked(await verify(h, p.apiKey, sent.body.sms_id as number, code), 'TS-1064', true, 5);
    });

    it('emits otp.verified to the sending key\u2019s webhook for a verified code only', async () => {
      const p = await h.provision({ key: { webhookUrl: 'http://127.0.0.1:9/hook', webhookSecret: 'a-secret-value' } });
      const { smsId, code } = await sendOtp(h, p.apiKey);
      await verify(h, p.apiKey, smsId, wrong(code));
      assert.equal((await otpEvents(h, p.keyId)).length, 0);
      assertChecked(await verify(h, p.apiKey, smsId, code), 'TS-1064', true, 4);
      await verify(h, p.apiKey, smsId, code);
      const events = await otpEvents(h, p.keyId);
      assert.equal(events.length, 1);
      assert.equal(events[0]?.smsId, smsId);
      assert.equal(events[0]?.state, 'pending');
    });

    it('answers TS-1052 for a missing sms_id and TS-1033 for a missing or non-digit code (400)', async () => {
      const p = await h.provision();
      const { smsId, code } = await sendOtp(h, p.apiKey);
      const noId = await h.post('/otp/verify', { api_key: p.apiKey, code });
      assert.deepEqual([noId.status, noId.body.result_code], [400, 'TS-1052']);
      for (const bad of [undefined, '', '12a4', 12.5, -3, null]) {
        const answer = await h.post('/otp/verify', { api_key: p.apiKey, sms_id: smsId, code: bad });
        assert.deepEqual([answer.status, answer.body.result_code], [400, 'TS-1033'], answer.raw);
      }
      assertChecked(await verify(h, p.apiKey, smsId, code), 'TS-1064', true, 5);
    });

    it('keeps no plain code at rest: the stored texts mask it, the carrier gets it from the seal', async () => {
      const p = await h.provision();
      const plain = await sendOtp(h, p.apiKey, { digits: 6, sms_lang: 0 });
      const own = await h.post('/otp/detailed', {
        api_key: p.apiKey,
        mobile: '905321234567',
        title: 'ACME',
        text: 'Code TS-CODE, again TS-CODE',
        lang: 0,
      });
      const db = (h.runtime.store as unknown as { context: { db: Kysely<unknown> } }).context.db;
      const { rows } = await sql<{ text: string | null; send_text: string | null; sealed_text: string | null }>`
        select m.text, s.text as send_text, o.sealed_text from messages m
        join sends s on s.id = m.send_id join otp_codes o on o.message_id = m.id
        where m.id in (${plain.smsId}, ${own.body.sms_id as number}) order by m.id`.execute(db);
      assert.deepEqual(
        rows.map((r) => r.send_text),
        ['Your activation code is:****** Acme', 'Code ****, again ****'],
      );
      for (const r of rows) {
        assert.equal(r.text, null);
        assert.doesNotMatch(r.sealed_text ?? '', new RegExp(`${plain.code}|${String(own.body.otp_code)}`));
      }
      const now = h.clock.now();
      const claimed = await h.runtime.store.queue.claimDue(now, 1000, now + 60_000);
      const texts = new Map(claimed.map((m) => [m.id, m.text]));
      assert.equal(texts.get(plain.smsId), `Your activation code is:${plain.code} Acme`);
      assert.equal(
        texts.get(own.body.sms_id as number),
        `Code ${String(own.body.otp_code)}, again ${String(own.body.otp_code)}`,
      );
    });

    it('stores the code only as its HMAC under the store\u2019s secret', async () => {
      const p = await h.provision();
      const { smsId, code } = await sendOtp(h, p.apiKey);
      const db = (h.runtime.store as unknown as { context: { db: Kysely<unknown> } }).context.db;
      const { rows } = await sql<{
        code_hash: string;
      }>`select code_hash from otp_codes where message_id = ${smsId}`.execute(db);
      const secret = await h.runtime.store.otp.secret();
      assert.equal(rows[0]?.code_hash, createHmac('sha256', secret).update(`${smsId}:${code}`).digest('hex'));
      assert.match(secret, /^[0-9a-f]{64}$/);
    });
  });
}

async function keySettings(h: Harness, keyId: number): Promise<KeySettings> {
  const key = await h.runtime.store.keys.getKey(keyId);
  assert.ok(key);
  return key;
}

async function otpEvents(h: Harness, keyId: number): Promise<{ smsId: number | null; state: string }[]> {
  const events = await h.runtime.store.events.recentForKey(keyId, 50);
  return events.filter((e) => e.eventType === 'otp.verified');
}
