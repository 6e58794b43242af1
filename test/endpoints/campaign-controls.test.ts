/**
 * POST /sms/cancel, /group/cancel, /group/pause, /group/resume through HTTP
 * (../shared/interfaces.md, "Campaign controls"), on every dialect: what a cancel stops and
 * gives back, what the carrier still gets (only what it had before the cancel's answer), the
 * cancelled state in /reports/basic, /reports/detailed and /sms/status, the sms.cancelled
 * event, a pause that no dispatcher claim passes until resume, and the refusals.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, intField, sendSms } from '../helpers/sms.js';
import {
  assertBulkAccepted,
  detailedOf,
  drain,
  groupSend,
  numbersEnding,
  reportBasic,
  reportDetailed,
} from '../helpers/bulk.js';
import { cancelledText } from '../../src/domain/delivery-state.js';
import { allPermissions } from '../../src/domain/permissions.js';
import { cancelledAtOnce } from '../../src/adapters/store/messages/cancel-work.js';

const later = { scheduled_sms: 1, scheduled_date: '2026-03-16', scheduled_time: '13:00' };

for (const dialect of testDialects()) {
  describeOn(dialect, `campaign controls through HTTP (${dialect.name})`, () => {
    let h: Harness;
    let live: RecordingCarrier;
    let delivery: Awaited<ReturnType<typeof simulatedDelivery>>;
    before(async () => {
      h = await createHarness(await dialect.location());
      live = new RecordingCarrier('live', (m) => ({ kind: 'accepted', carrierMessageIds: [`c-${m.messageId}`] }));
      delivery = await simulatedDelivery(h.runtime, { live });
    });
    after(async () => {
      await delivery.stop();
      await h.close();
    });

    const balance = async (p: Provisioned): Promise<number> =>
      intField(await h.post('/balance/', { api_key: p.apiKey }), 'balance_main');
    const submittedOf = (numbers: readonly string[]): number =>
      live.submitted.filter((m) => numbers.includes(m.to)).length;

    it('/group/cancel of a scheduled send cancels every message, gives all its credit back, and nothing is sent', async () => {
      const p = await h.provision();
      const sentto = numbersEnding('1234', 120, '9054');
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello', ...later }));
      assert.equal(await balance(p), 1000 - 120);
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.equal(cancel.status, 200, cancel.raw);
      assert.deepEqual(
        {
          result: cancel.body.result,
          code: cancel.body.result_code,
          cancelled: cancel.body.cancelled,
          refunded: cancel.body.refunded,
        },
        { result: true, code: 'TS-1064', cancelled: 120, refunded: 120 },
      );
      assert.equal(await balance(p), 1000);
      h.clock.set(Date.UTC(2026, 2, 16, 11));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 0);
      const basic = await reportBasic(h, p.apiKey, sent.raporId);
      assert.equal(basic.body.cancelled_count, 120, basic.raw);
      assert.equal(basic.body.pending_count, 0, basic.raw);
      assert.equal((basic.body.details as { report_status: string }).report_status, 'Cancelled');
      const rows = detailedOf(await reportDetailed(h, p.apiKey, sent.raporId)).data;
      assert.equal(rows.length, 120);
      assert.ok(rows.every((r) => r.sms_status === cancelledText && r.details.status_code === 0));
      // A second cancel finds nothing more and gives nothing more.
      const again = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual([again.body.cancelled, again.body.refunded], [0, 0]);
      assert.equal(await balance(p), 1000);
    });

    it('/group/cancel of a running send: what the carrier had runs its course, nothing is submitted after the answer', async () => {
      const p = await h.provision();
      const sentto = numbersEnding('1234', 300, '9055');
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello' }));
      await delivery.runOnce();
      await delivery.runOnce();
      const before = submittedOf(sentto);
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      const cancelled = Number(cancel.body.cancelled);
      await drain(delivery);
      assert.equal(submittedOf(sentto), before, 'nothing submitted after the answer');
      assert.equal(before + cancelled, 300, 'sent + cancelled = accepted');
      assert.equal(cancel.body.refunded, cancelled);
      assert.equal(await balance(p), 1000 - before);
    });

    it('a cancel of more than it settles at once answers for all of it; the rest is settled after, given back exactly once', async () => {
      const p = await h.provision({ account: { balanceMain: 5000 } });
      const total = cancelledAtOnce + 700;
      const sentto = numbersEnding('1234', total, '9057');
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello' }));
      await delivery.runOnce(); // every message written out, the first batch submitted
      const before = submittedOf(sentto);
      assert.ok(before > 0 && before < total - cancelledAtOnce, `submitted before the cancel: ${before}`);
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual(
        [cancel.body.result_code, cancel.body.cancelled, cancel.body.refunded],
        ['TS-1064', total - before, total - before],
        cancel.raw,
      );
      // The credit of every message stopped is back with the answer, before the settling.
      assert.equal(await balance(p), 5000 - before);
      // A claim between the answer and the settling finds the rest still queued: it gives
      // them back and sends none of them (nothing else is due in this store now).
      const now = h.clock.now();
      assert.deepEqual(await h.runtime.store.queue.claimDue(now, 50, now + 60_000), []);
      const again = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual([again.body.cancelled, again.body.refunded], [0, 0], 'counted once');
      await drain(delivery);
      assert.equal(submittedOf(sentto), before, 'nothing submitted after the answer');
      assert.equal(await balance(p), 5000 - before, 'the settling gave nothing twice');
      const basic = await reportBasic(h, p.apiKey, sent.raporId);
      assert.deepEqual([basic.body.cancelled_count, basic.body.pending_count], [total - before, before], basic.raw);
      const last = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual([last.body.cancelled, last.body.refunded], [0, 0]);
      assert.equal(await balance(p), 5000 - before);
    });

    it('a cancel of a large scheduled send counts its list at once and writes it out cancelled after', async () => {
      const p = await h.provision({ account: { balanceMain: 5000 } });
      const total = cancelledAtOnce + 450;
      const sentto = numbersEnding('1234', total, '9058');
      // Later on the day the first test moved the clock to (14:00 in Istanbul).
      const at = { scheduled_sms: 1, scheduled_date: '2026-03-16', scheduled_time: '15:00' };
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello', ...at }));
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual([cancel.body.cancelled, cancel.body.refunded], [total, total], cancel.raw);
      assert.equal(await balance(p), 5000);
      h.clock.set(Date.UTC(2026, 2, 16, 12, 30));
      await drain(delivery);
      assert.equal(submittedOf(sentto), 0);
      assert.equal(await balance(p), 5000);
      const basic = await reportBasic(h, p.apiKey, sent.raporId);
      assert.deepEqual([basic.body.cancelled_count, basic.body.total_numbers], [total, total], basic.raw);
      const page = detailedOf(await reportDetailed(h, p.apiKey, sent.raporId));
      assert.ok(page.data.length > 0 && page.data.every((r) => r.sms_status === cancelledText));
    });

    it('/group/pause holds the send from the dispatcher until /group/resume', async () => {
      const p = await h.provision();
      const sentto = numbersEnding('1234', 40, '9056');
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text: 'Hello' }));
      const paused = await h.post('/group/pause', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual([paused.body.result_code, paused.body.state, paused.body.waiting], ['TS-1064', 'paused', 40]);
      await drain(delivery);
      assert.equal(submittedOf(sentto), 0);
      const basic = await reportBasic(h, p.apiKey, sent.raporId);
      assert.equal((basic.body.details as { report_status: string }).report_status, 'Paused: waiting to be resumed');
      const resumed = await h.post('/group/resume', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.deepEqual([resumed.body.state, resumed.body.waiting], ['running', 40]);
      await drain(delivery);
      assert.equal(submittedOf(sentto), 40);
    });

    it('/sms/cancel of a scheduled /sms/send by its report id, with the sms.cancelled event', async () => {
      const p = await h.provision({ key: { webhookUrl: 'http://127.0.0.1:9/hook', webhookSecret: 'secret-1' } });
      const sent = await sendSms(h, p.apiKey, {
        sentto: '905571111111,905572222222',
        scheduled_date: '2026-03-17',
        scheduled_time: '18:00',
      });
      assertAccepted(sent);
      const cancel = await h.post('/sms/cancel', { api_key: p.apiKey, sms_id: intField(sent, 'sms_id') });
      assert.deepEqual(
        [cancel.body.result_code, cancel.body.cancelled, cancel.body.refunded],
        ['TS-1064', 2, 2],
        cancel.raw,
      );
      const events = await h.runtime.store.events.recentForKey(p.keyId, 10);
      assert.deepEqual(
        events.map((e) => [e.eventType, e.status]),
        [
          ['sms.cancelled', 'cancelled'],
          ['sms.cancelled', 'cancelled'],
        ],
      );
      // One message of an immediate /sms/send, still queued (no dispatcher ran), by its sms_id.
      const single = await sendSms(h, p.apiKey, { sentto: '905573333333' });
      assertAccepted(single);
      const smsId = intField(single, 'sms_id');
      const one = await h.post('/sms/cancel', { api_key: p.apiKey, sms_id: smsId });
      assert.deepEqual([one.body.cancelled, one.body.refunded], [1, 1], one.raw);
      const status = await h.post('/sms/status', { api_key: p.apiKey, sms_id: smsId });
      assert.deepEqual([status.body.result_code, status.body.sms_status], ['TS-1022', cancelledText], status.raw);
      assert.equal((await h.runtime.store.events.recentForKey(p.keyId, 10)).length, 3);
    });

    it('refusals: unknown ids, other accounts, missing fields, and the permission of each endpoint', async () => {
      const p = await h.provision();
      const other = await h.provision();
      const sent = assertBulkAccepted(
        await groupSend(h, p.apiKey, { sentto: ['905321234567'], text: 'Hi', ...later, scheduled_date: '2026-03-20' }),
      );
      for (const path of ['/group/cancel', '/group/pause', '/group/resume']) {
        const missing = await h.post(path, { api_key: p.apiKey });
        assert.deepEqual([missing.status, missing.body.result_code], [400, 'TS-1029'], missing.raw);
        const foreign = await h.post(path, { api_key: other.apiKey, rapor_id: sent.raporId });
        assert.deepEqual([foreign.status, foreign.body.result, foreign.body.result_code], [200, false, 'TS-1029']);
      }
      const unknown = await h.post('/sms/cancel', { api_key: p.apiKey, sms_id: sent.raporId });
      assert.deepEqual([unknown.status, unknown.body.result_code], [403, 'TS-1020'], 'a group report is no /sms/send');
      const noId = await h.post('/sms/cancel', { api_key: p.apiKey });
      assert.deepEqual([noId.status, noId.body.result_code], [400, 'TS-1052']);
      const groupOnly = await h.provision({ key: { permissions: { ...allPermissions(false), send_group_sms: true } } });
      const smsOnly = await h.provision({
        key: { permissions: { ...allPermissions(false), post_request: true, send_single_sms: true } },
      });
      assert.equal((await h.post('/sms/cancel', { api_key: groupOnly.apiKey, sms_id: 1 })).body.result_code, 'TS-1061');
      assert.equal(
        (await h.post('/group/pause', { api_key: smsOnly.apiKey, rapor_id: 1 })).body.result_code,
        'TS-1067',
      );
    });
  });
}
