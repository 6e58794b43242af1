/**
 * /sms/send through to delivery: scheduled sends (charged at request time, sent when their
 * time comes, and not before) and sandbox keys (same checks and charges, always the
 * simulator).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultNow, harnessFor } from '../helpers/harness.js';
import type { Answer } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery, storedMessage, waitForState } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, assertRefused, balancesOf, intField, sendSms, smsStatus, validSend } from '../helpers/sms.js';
import { openAppContainer } from '../../src/main.js';
import { buildApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { localDate, localTime } from '../../src/domain/istanbul-time.js';
import { waitFor } from '../helpers/wait-for.js';
import { valueOf } from '../helpers/results.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `/sms/send scheduled, with a fixed clock, on ${dialect.name}`, () => {
    const h = harnessFor(dialect);

    it('charges at request time, answers with the report id, and sends when the time comes and not before', async () => {
      const p = await h.provision();
      const delivery = await simulatedDelivery(h.runtime);
      try {
        // 12:00:00 now; scheduled for ten seconds later.
        const answer = await sendSms(h, p.apiKey, {
          sentto: '905321231234,905421235678',
          scheduled_date: '2026-03-15',
          scheduled_time: '12:00:10',
        });
        assertAccepted(answer);
        assert.equal(answer.body.total_recipients, 2);
        assert.equal(answer.body.number_of_sms, 2);
        const reportId = intField(answer, 'sms_id');
        assert.equal((await balancesOf(h, p.apiKey)).main, 998, 'charged at once');
        const send = await h.runtime.store.reports.findSend(reportId, p.accountId);
        assert.equal(send?.scheduledAt, defaultNow + 10_000);
        assert.equal(send?.totalNumbers, 2);
        assertRefused(await smsStatus(h, p.apiKey, reportId), 'TS-1020', 403);

        // An immediate send made meanwhile goes out at once; the scheduled one waits.
        const now = await sendSms(h, p.apiKey, { sentto: '905321239999' });
        assertAccepted(now);
        assert.equal(await delivery.runOnce(), 1);
        assert.ok(delivery.transitions.length > 0);
        assert.ok(delivery.transitions.every((t) => t.messageId === intField(now, 'sms_id')));
        h.clock.advance(9_000);
        assert.equal(await delivery.runOnce(), 0, 'nothing due one second before the time');

        h.clock.advance(2_000);
        assert.equal(await delivery.runOnce(), 2);
        const scheduledIds = delivery.transitions
          .filter((t) => t.state === 'sent' && t.messageId !== intField(now, 'sms_id'))
          .map((t) => t.messageId);
        assert.equal(scheduledIds.length, 2);
        for (const id of scheduledIds) {
          const message = await delivery.waitForState(p.accountId, id, ['delivered']);
          assert.equal(message.sendId, reportId);
          assert.equal(message.scheduled, true);
          assert.equal(message.submittedAt, defaultNow + 11_000);
          // Its messages are reached through the report id only.
          assertRefused(await smsStatus(h, p.apiKey, id), 'TS-1020', 403);
        }
        assert.equal((await balancesOf(h, p.apiKey)).main, 997, 'nothing more charged when sent');
      } finally {
        await delivery.stop();
      }
    });

    it('refuses a scheduled send the balance does not cover, recording nothing', async () => {
      const p = await h.provision({ account: { balanceMain: 1 } });
      const answer = await sendSms(h, p.apiKey, {
        sentto: '905321231234,905421235678',
        scheduled_date: '2026-03-16',
        scheduled_time: '10:00',
      });
      assertRefused(answer, 'TS-1027', 403);
      assert.equal((await balancesOf(h, p.apiKey)).main, 1);
      assert.equal(await h.runtime.store.reports.recipientsSince(p.accountId, -1), 0);
    });
  });
}

describe('/sms/send scheduled, with the system clock', () => {
  it('goes out after its time and not before', async () => {
    const runtime = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: runtime.services,
      requestsPerSecond: 0,
    });
    const delivery = await simulatedDelivery(runtime, { background: true });
    try {
      const account = await valueOf(
        runtime.admin.createAccount({
          name: 'Clock',
          balanceMain: 10,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      await valueOf(runtime.admin.addSenderId(account.id, 'ACME', 'approved'));
      const key = await valueOf(runtime.admin.createKey(account.id, defaultKeySettings));
      // A whole second at least two seconds ahead (scheduled_time has a resolution of seconds).
      const at = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
      const response = await app.inject({
        method: 'POST',
        url: '/sms/send',
        payload: {
          api_key: key.api_key,
          ...validSend,
          sentto: '905321231234',
          scheduled_date: localDate(at),
          scheduled_time: localTime(at),
        },
      });
      const answer: Answer = {
        status: response.statusCode,
        body: response.json<Record<string, unknown>>(),
        headers: response.headers,
        raw: response.body,
      };
      assertAccepted(answer);
      const reportId = intField(answer, 'sms_id');
      assert.equal((await runtime.store.reports.findSend(reportId, account.id))?.scheduledAt, at);
      // Until its time the send has no messages, though the dispatcher is running.
      await waitFor('the scheduled time to come near', async () => {
        if (Date.now() < at - 250) assert.equal((await runtime.store.reports.sendMessages(reportId, 0, 10)).length, 0);
        return Date.now() >= at - 250;
      });
      let messageId = 0;
      await waitFor('the scheduled send to be written out', async () => {
        messageId = (await runtime.store.reports.sendMessages(reportId, 0, 10))[0]?.id ?? 0;
        return messageId > 0;
      });
      assert.equal((await storedMessage(runtime, account.id, messageId)).sendId, reportId);
      const delivered = await waitForState(runtime, account.id, messageId, ['delivered'], 10_000);
      assert.ok(
        delivered.submittedAt !== null && delivered.submittedAt >= at,
        `submitted at ${String(delivered.submittedAt)}, scheduled for ${at}`,
      );
      assert.ok(delivery.transitions.some((t) => t.messageId === messageId && t.state === 'delivered'));
    } finally {
      await delivery.stop();
      await app.close();
      await runtime.close();
    }
  });
});

for (const dialect of testDialects()) {
  describeOn(dialect, `/sms/send with a sandbox key on ${dialect.name}`, () => {
    const h = harnessFor(dialect);

    it('checks and charges like a live key, and is delivered by the simulator whatever the live carrier', async () => {
      const live = new RecordingCarrier('live-carrier');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const p = await h.provision({ key: { sandbox: true } });
        assertRefused(await sendSms(h, p.apiKey, { title: 'OTHER' }), 'TS-1028', 400);
        const answer = await sendSms(h, p.apiKey, { sentto: '905321231234,905321230000' });
        assertAccepted(answer);
        assert.equal(answer.body.number_of_sms, 2);
        assert.equal((await balancesOf(h, p.apiKey)).main, 998);
        const lastId = intField(answer, 'sms_id');

        const liveKey = await h.provision();
        const liveAnswer = await sendSms(h, liveKey.apiKey);
        assertAccepted(liveAnswer);

        assert.equal(await delivery.runOnce(), 3);
        // Only the live key's message reached the live carrier.
        assert.deepEqual(
          live.submitted.map((m) => m.messageId),
          [intField(liveAnswer, 'sms_id')],
        );
        // The sandbox messages get the simulator's outcomes: 0000 fails, the other is delivered.
        const failed = await delivery.waitForState(p.accountId, lastId, ['delivered', 'failed', 'expired']);
        assert.equal(failed.state, 'failed');
        const deliveredId =
          delivery.transitions.find(
            (t) => t.state === 'sent' && t.messageId !== lastId && t.messageId !== intField(liveAnswer, 'sms_id'),
          )?.messageId ?? 0;
        assert.equal(
          (await delivery.waitForState(p.accountId, deliveredId, ['delivered', 'failed', 'expired'])).state,
          'delivered',
        );
        const status = await smsStatus(h, p.apiKey, deliveredId);
        assert.equal(status.body.result_code, 'TS-1064', status.raw);
        assert.equal((await smsStatus(h, p.apiKey, lastId)).body.result_code, 'TS-1022');
      } finally {
        await delivery.stop();
      }
    });
  });
}
