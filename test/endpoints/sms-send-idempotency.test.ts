/**
 * /sms/send `idempotency_key` (an additional request field): a retried request is answered
 * with the first answer and charged once, on every dialect and under concurrency.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor } from '../helpers/harness.js';

import { describeOn, testDialects } from '../helpers/dialects.js';
import { messageCount } from '../helpers/delivery.js';
import { assertAccepted, assertRefused, balancesOf, intField, sendSms } from '../helpers/sms.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from '../helpers/results.js';

const day = 24 * 3600_000;

for (const dialect of testDialects()) {
  describeOn(dialect, `/sms/send idempotency on ${dialect.name}`, () => {
    const h = harnessFor(dialect);

    it('answers a repeated request with the first answer, charging and sending once', async () => {
      const p = await h.provision();
      const fields = { sentto: '905321231234,905421235678', idempotency_key: 'order-1' };
      const first = await sendSms(h, p.apiKey, fields);
      assertAccepted(first);
      const second = await sendSms(h, p.apiKey, fields);
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      assert.equal(await messageCount(h.runtime, p.accountId), 2);
      assert.equal((await balancesOf(h, p.apiKey)).main, 998);
    });

    it('treats the same fields sent as a form, or with another key of the account, as the same request', async () => {
      const p = await h.provision();
      const first = await sendSms(h, p.apiKey, { sms_lang: 1, idempotency_key: 'form-1' });
      assertAccepted(first);
      const form = new URLSearchParams({
        api_key: p.apiKey,
        sentto: '905321234567',
        title: 'ACME',
        text: 'Hello',
        sms_lang: '1',
        idempotency_key: 'form-1',
      });
      const again = await h.post('/sms/send', undefined, {
        raw: form.toString(),
        contentType: 'application/x-www-form-urlencoded',
      });
      assert.deepEqual(again.body, first.body);
      const otherKey = await valueOf(h.runtime.admin.createKey(p.accountId, defaultKeySettings));
      const viaOtherKey = await sendSms(h, otherKey.api_key, { sms_lang: 1, idempotency_key: 'form-1' });
      assert.deepEqual(viaOtherKey.body, first.body);
      assert.equal(await messageCount(h.runtime, p.accountId), 1);
      assert.equal((await balancesOf(h, p.apiKey)).main, 999);
    });

    it('refuses the same key with a different request with TS-1033 and HTTP 400, sending nothing', async () => {
      const p = await h.provision();
      assertAccepted(await sendSms(h, p.apiKey, { idempotency_key: 'order-2' }));
      for (const changed of [
        { text: 'Hello again' },
        { sentto: '905327654321' },
        { sms_lang: 0 },
        { scheduled_date: '2026-03-16', scheduled_time: '10:00' },
      ]) {
        assertRefused(await sendSms(h, p.apiKey, { ...changed, idempotency_key: 'order-2' }), 'TS-1033', 400);
      }
      assert.equal(await messageCount(h.runtime, p.accountId), 1);
      assert.equal((await balancesOf(h, p.apiKey)).main, 999);
    });

    it('keeps the keys of different accounts apart', async () => {
      const a = await h.provision();
      const b = await h.provision();
      const fromA = await sendSms(h, a.apiKey, { idempotency_key: 'shared' });
      const fromB = await sendSms(h, b.apiKey, { text: 'Another text', idempotency_key: 'shared' });
      assertAccepted(fromA);
      assertAccepted(fromB);
      assert.notEqual(fromA.body.sms_id, fromB.body.sms_id);
      assert.equal((await balancesOf(h, a.apiKey)).main, 999);
      assert.equal((await balancesOf(h, b.apiKey)).main, 999);
    });

    it('charges once for ten identical requests sent at the same time', async () => {
      const p = await h.provision();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          sendSms(h, p.apiKey, { sentto: '905321231234,905421235678', idempotency_key: 'burst' }),
        ),
      );
      for (const answer of answers) {
        assertAccepted(answer);
        assert.deepEqual(answer.body, answers[0]?.body);
      }
      assert.equal(await messageCount(h.runtime, p.accountId), 2);
      assert.equal((await balancesOf(h, p.apiKey)).main, 998);
    });

    it('accepts exactly one of several different requests sent at the same time with one key', async () => {
      const p = await h.provision();
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => sendSms(h, p.apiKey, { text: `Text ${i}`, idempotency_key: 'race' })),
      );
      const codes = answers.map((a) => a.body.result_code).sort();
      assert.deepEqual(codes, ['TS-1024', 'TS-1033', 'TS-1033', 'TS-1033', 'TS-1033']);
      assert.equal(await messageCount(h.runtime, p.accountId), 1);
      assert.equal((await balancesOf(h, p.apiKey)).main, 999);
    });

    it('does not spend the key on a refused request', async () => {
      const p = await h.provision({ account: { balanceMain: 1 } });
      const fields = { sentto: '905321231234,905421235678', idempotency_key: 'retry-after-topup' };
      assertRefused(await sendSms(h, p.apiKey, fields), 'TS-1027', 403);
      await valueOf(h.runtime.admin.updateAccount(p.accountId, {}, { main: 10 }));
      const answer = await sendSms(h, p.apiKey, fields);
      assertAccepted(answer);
      assert.equal((await balancesOf(h, p.apiKey)).main, 8);
    });

    it('replays an accepted request past the per-minute limit, which counts new recipients only', async () => {
      const p = await h.provision({ account: { perMinuteLimit: 1 } });
      const first = await sendSms(h, p.apiKey, { idempotency_key: 'minute' });
      assertAccepted(first);
      assert.deepEqual((await sendSms(h, p.apiKey, { idempotency_key: 'minute' })).body, first.body);
      assertRefused(await sendSms(h, p.apiKey, { idempotency_key: 'minute-2' }), 'TS-1060', 429);
    });

    it('replays a scheduled send with its report id', async () => {
      const p = await h.provision();
      const fields = { scheduled_date: '2026-03-16', scheduled_time: '10:00', idempotency_key: 'later' };
      const first = await sendSms(h, p.apiKey, fields);
      assertAccepted(first);
      const again = await sendSms(h, p.apiKey, fields);
      assert.equal(intField(again, 'sms_id'), intField(first, 'sms_id'));
      assert.equal((await balancesOf(h, p.apiKey)).main, 999);
    });

    it('frees the key after 24 hours', async () => {
      const p = await h.provision();
      const first = await sendSms(h, p.apiKey, { idempotency_key: 'daily' });
      assertAccepted(first);
      h.clock.advance(day - 1_000);
      assert.deepEqual(
        (await sendSms(h, p.apiKey, { idempotency_key: 'daily' })).body,
        first.body,
        'still replayed just before 24 hours',
      );
      h.clock.advance(2_000);
      const same = await sendSms(h, p.apiKey, { idempotency_key: 'daily' });
      assertAccepted(same);
      assert.notEqual(same.body.sms_id, first.body.sms_id, 'a new send');
      // The key now belongs to the new request: a different one is refused again.
      assertRefused(await sendSms(h, p.apiKey, { text: 'Other', idempotency_key: 'daily' }), 'TS-1033', 400);
      h.clock.advance(day + 1_000);
      assertAccepted(await sendSms(h, p.apiKey, { text: 'Other', idempotency_key: 'daily' }));
      assert.equal(await messageCount(h.runtime, p.accountId), 3);
      assert.equal((await balancesOf(h, p.apiKey)).main, 997);
    });

    it('refuses an empty or over-long idempotency_key with TS-1033 and HTTP 400', async () => {
      const p = await h.provision();
      assertRefused(await sendSms(h, p.apiKey, { idempotency_key: '' }), 'TS-1033', 400);
      assertRefused(await sendSms(h, p.apiKey, { idempotency_key: 'k'.repeat(256) }), 'TS-1033', 400);
      assertAccepted(await sendSms(h, p.apiKey, { idempotency_key: 'k'.repeat(255) }));
    });
  });
}
