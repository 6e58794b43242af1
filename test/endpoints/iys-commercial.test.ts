/**
 * Commercial messages under Turkish law (issue 34) through HTTP, on every configured
 * dialect: consents recorded with /iys/consent/add (per-item errors, the newest per
 * recipient and type wins) and read with /iys/consent/status, both guarded by manage_iys;
 * a commercial send (iys=1) on /sms/send, /group/send and /group/sendMixed goes only to
 * recipients whose consent in force is ONAY: the others are not sent, not charged, counted
 * in `iys_skipped`, failed in the reports with their reason, and each gets sms.failed with
 * the reason when the key's webhook takes it. A send without iys is unchanged.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertBulkAccepted, drain, groupSend, groupSendMixed, reportBasic, reportDetailed } from '../helpers/bulk.js';
import { balancesOf } from '../helpers/sms.js';
import { parsePermissionList } from '../../src/domain/permissions.js';

const consented = '905321110001';
const refused = '905321110002';
const unknown = '905321110003';
const tacirOnly = '905321110004';

function consent(recipient: string, status: 'ONAY' | 'RET', date: string, type = 'BIREYSEL'): Record<string, unknown> {
  return { recipient, status, recipient_type: type, source: 'HS_WEB', consent_date: date };
}

async function addConsents(h: Harness, apiKey: string, consents: unknown[]): Promise<Answer> {
  return h.post('/iys/consent/add', { api_key: apiKey, consents });
}

async function statusOf(h: Harness, apiKey: string, recipient: string, type?: string): Promise<Answer> {
  return h.post('/iys/consent/status', { api_key: apiKey, recipient, ...(type ? { recipient_type: type } : {}) });
}

/** An account whose key's webhook takes every event, with the four recipients' consents recorded. */
async function commercialAccount(h: Harness): Promise<Provisioned> {
  const p = await h.provision({ key: { webhookUrl: 'http://127.0.0.1:9/hook', webhookSecret: 'secret-1' } });
  const added = await addConsents(h, p.apiKey, [
    consent(consented, 'ONAY', '2026-03-01 10:00:00'),
    consent(refused, 'ONAY', '2026-03-01 10:00:00'),
    consent(refused, 'RET', '2026-03-02 10:00:00'),
    consent(tacirOnly, 'ONAY', '2026-03-01 10:00:00', 'TACIR'),
  ]);
  assert.equal(added.body.result_code, 'TS-1064', added.raw);
  assert.equal(added.body.added, 4, added.raw);
  return p;
}

async function failedEvents(h: Harness, keyId: number): Promise<Map<number, Record<string, unknown> | null>> {
  const events = await h.runtime.store.events.recentForKey(keyId, 100);
  return new Map(events.filter((e) => e.eventType === 'sms.failed').map((e) => [e.smsId ?? 0, e.extra]));
}

for (const dialect of testDialects()) {
  describeOn(dialect, `İYS consents and commercial sends on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it('records consents with per-item errors; the newest per recipient and type wins', async () => {
      const p = await h.provision();
      const answer = await addConsents(h, p.apiKey, [
        consent('0532 111 00 01', 'ONAY', '2026-03-01 10:00:00'),
        consent(consented, 'RET', '2026-02-01 10:00:00'), // older: changes nothing
        consent('12345', 'ONAY', '2026-03-01 10:00:00'),
        { ...consent(unknown, 'ONAY', '2026-03-01 10:00:00'), status: 'MAYBE' },
        { ...consent(unknown, 'ONAY', '2026-03-01 10:00:00'), source: 'SOMEWHERE' },
        consent(unknown, 'ONAY', '2026-13-01 10:00:00'),
        consent(unknown, 'ONAY', '2027-01-01 10:00:00'), // in the future of the clock
        consent(unknown, 'ONAY', '2026-03-01 10:00:00', 'KURUMSAL'),
        'not an object',
      ]);
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.body.result_code, 'TS-1064', answer.raw);
      assert.equal(answer.body.added, 2, answer.raw);
      assert.equal(answer.body.failed, 7, answer.raw);
      const errors = answer.body.errors as { index: number; code: string }[];
      assert.deepEqual(
        errors.map((e) => [e.index, e.code]),
        [
          [2, 'TS-1025'],
          [3, 'TS-1033'],
          [4, 'TS-1033'],
          [5, 'TS-1033'],
          [6, 'TS-1033'],
          [7, 'TS-1033'],
          [8, 'TS-1033'],
        ],
      );
      const status = await statusOf(h, p.apiKey, '05321110001');
      assert.equal(status.body.result_code, 'TS-1064', status.raw);
      assert.equal(status.body.recipient, consented);
      assert.equal(status.body.status, 'ONAY', status.raw);
      assert.equal(status.body.consent_date, '2026-03-01 10:00:00');
      assert.equal(status.body.source, 'HS_WEB');
      // A newer RET replaces the ONAY; the other type and other numbers are apart.
      await addConsents(h, p.apiKey, [consent(consented, 'RET', '2026-03-05 09:30:00')]);
      assert.equal((await statusOf(h, p.apiKey, consented)).body.status, 'RET');
      assert.equal((await statusOf(h, p.apiKey, consented, 'TACIR')).body.status, 'NONE');
      const none = await statusOf(h, p.apiKey, unknown);
      assert.equal(none.body.status, 'NONE');
      assert.equal(none.body.consent_date, '');
      // Another account's records are its own.
      const other = await h.provision();
      assert.equal((await statusOf(h, other.apiKey, consented)).body.status, 'NONE');
    });

    it('refuses source IYS, kept for records pulled from İYS, item by item: the others are recorded', async () => {
      const p = await h.provision();
      const answer = await addConsents(h, p.apiKey, [
        { ...consent(consented, 'ONAY', '2026-03-01 10:00:00'), source: 'IYS' },
        consent(refused, 'ONAY', '2026-03-01 10:00:00'),
        { ...consent(refused, 'RET', '2026-03-02 10:00:00'), source: 'IYS' },
      ]);
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.body.result_code, 'TS-1064', answer.raw);
      assert.equal(answer.body.added, 1, answer.raw);
      assert.equal(answer.body.failed, 2, answer.raw);
      const errors = answer.body.errors as { index: number; code: string; message: string }[];
      assert.deepEqual(
        errors.map((e) => [e.index, e.code]),
        [
          [0, 'TS-1033'],
          [2, 'TS-1033'],
        ],
      );
      for (const e of errors) assert.match(e.message, /source IYS is kept for records pulled from İYS/);
      assert.equal((await statusOf(h, p.apiKey, consented)).body.status, 'NONE', 'nothing recorded for it');
      const kept = await statusOf(h, p.apiKey, refused);
      assert.equal(kept.body.status, 'ONAY', 'the RET with source IYS changed nothing');
      assert.equal(kept.body.source, 'HS_WEB');
    });

    it('refuses bad requests in the envelope: no consents, over 1,000, a number that is not mobile', async () => {
      const p = await h.provision();
      const missing = await h.post('/iys/consent/add', { api_key: p.apiKey });
      assert.equal(missing.body.result_code, 'TS-1033', missing.raw);
      assert.equal(missing.status, 400);
      const empty = await addConsents(h, p.apiKey, []);
      assert.equal(empty.body.result_code, 'TS-1033', empty.raw);
      const many = Array.from({ length: 1001 }, () => consent(consented, 'ONAY', '2026-03-01 10:00:00'));
      const over = await addConsents(h, p.apiKey, many);
      assert.equal(over.body.result_code, 'TS-1060', over.raw);
      assert.equal(over.status, 400);
      assert.equal((await statusOf(h, p.apiKey, consented)).body.status, 'NONE', 'nothing recorded');
      const landline = await statusOf(h, p.apiKey, '02121234567');
      assert.equal(landline.body.result_code, 'TS-1025', landline.raw);
      const badType = await statusOf(h, p.apiKey, consented, 'KURUMSAL');
      assert.equal(badType.body.result_code, 'TS-1033', badType.raw);
    });

    it('manage_iys guards both endpoints and /auth/post/check/ reports it', async () => {
      const set = parsePermissionList('send_single_sms,post_request');
      if ('unknown' in set) throw new Error('bad list');
      const p = await h.provision({ key: { permissions: set } });
      const add = await addConsents(h, p.apiKey, [consent(consented, 'ONAY', '2026-03-01 10:00:00')]);
      assert.equal(add.body.result_code, 'TS-1065', add.raw);
      assert.equal(add.status, 403);
      assert.equal((await statusOf(h, p.apiKey, consented)).body.result_code, 'TS-1065');
      const check = await h.post('/auth/post/check/', { api_key: p.apiKey });
      const perms = (check.body.key_details as { permissions: Record<string, boolean> }).permissions;
      assert.equal(perms.manage_iys, false);
      const all = await h.provision();
      const allCheck = await h.post('/auth/post/check/', { api_key: all.apiKey });
      assert.equal(
        (allCheck.body.key_details as { permissions: Record<string, boolean> }).permissions.manage_iys,
        true,
      );
    });

    it('/sms/send with iys=1 sends to the consented only; the others are failed, uncharged, evented', async () => {
      const p = await commercialAccount(h);
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const answer = await h.post('/sms/send', {
          api_key: p.apiKey,
          sentto: [consented, refused, unknown, tacirOnly].join(','),
          title: 'ACME',
          text: 'Indirim! RET yazip 4609a gonderin',
          iys: 1,
        });
        assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
        assert.equal(answer.body.total_recipients, 4);
        assert.equal(answer.body.success_count, 1);
        assert.equal(answer.body.iys_skipped, 3);
        assert.equal(answer.body.number_of_sms, 1);
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 999, international: 100 });
        await drain(delivery);
        assert.deepEqual(
          live.submitted.map((m) => m.to),
          [consented],
        );
        // Each left-out message says why, in /sms/status and in its sms.failed event.
        const lastId = Number(answer.body.sms_id);
        const ids = [lastId - 3, lastId - 2, lastId - 1, lastId];
        const details = await Promise.all(
          ids.map(async (id) => (await h.post('/sms/status', { api_key: p.apiKey, sms_id: id })).body.details),
        );
        assert.match(String(details[1]), /RET/);
        assert.match(String(details[2]), /no consent/);
        assert.match(String(details[3]), /no consent/);
        const events = await failedEvents(h, p.keyId);
        assert.deepEqual(events.get(ids[1] ?? 0), { reason: 'IYS_RET', iys_recipient_type: 'BIREYSEL' });
        assert.deepEqual(events.get(ids[2] ?? 0), { reason: 'IYS_NO_CONSENT', iys_recipient_type: 'BIREYSEL' });
        assert.deepEqual(events.get(ids[3] ?? 0), { reason: 'IYS_NO_CONSENT', iys_recipient_type: 'BIREYSEL' });
        assert.equal(events.has(ids[0] ?? 0), false, 'the consented message did not fail');
      } finally {
        await delivery.stop();
      }
    });

    it('iys_recipient_type TACIR filters by the merchant consents', async () => {
      const p = await commercialAccount(h);
      const answer = await h.post('/sms/send', {
        api_key: p.apiKey,
        sentto: `${consented},${tacirOnly}`,
        title: 'ACME',
        text: 'Kampanya',
        iys: '1',
        iys_recipient_type: 'TACIR',
      });
      assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
      assert.equal(answer.body.success_count, 1);
      assert.equal(answer.body.iys_skipped, 1);
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        await drain(delivery);
        assert.deepEqual(
          live.submitted.map((m) => m.to),
          [tacirOnly],
        );
      } finally {
        await delivery.stop();
      }
      const bad = await h.post('/sms/send', {
        api_key: p.apiKey,
        sentto: consented,
        title: 'ACME',
        text: 'Kampanya',
        iys: 2,
      });
      assert.equal(bad.body.result_code, 'TS-1033', bad.raw);
    });

    for (const [path, send] of [
      [
        '/group/send',
        (p: Provisioned, numbers: string[], extra: Record<string, unknown>) =>
          groupSend(h, p.apiKey, { sentto: numbers, text: 'Indirim', ...extra }),
      ],
      [
        '/group/sendMixed',
        (p: Provisioned, numbers: string[], extra: Record<string, unknown>) =>
          groupSendMixed(h, p.apiKey, { sentto: numbers, text: numbers.map((n) => `Indirim ${n}`), ...extra }),
      ],
    ] as const) {
      it(`${path} with iys=1: consented sent and charged, the others in the report with their reason`, async () => {
        const p = await commercialAccount(h);
        const live = new RecordingCarrier('live');
        const delivery = await simulatedDelivery(h.runtime, { live });
        try {
          const numbers = [unknown, refused, consented, tacirOnly];
          const answer = await send(p, numbers, { iys: 1 });
          const result = assertBulkAccepted(answer);
          assert.equal(result.totalNumbers, 4);
          assert.equal(result.totalSmsCost, 1);
          assert.equal(answer.body.iys_skipped, 3);
          assert.deepEqual(await balancesOf(h, p.apiKey), { main: 999, international: 100 });
          await drain(delivery);
          assert.deepEqual(
            live.submitted.map((m) => m.to),
            [consented],
          );
          if (path === '/group/sendMixed') assert.equal(live.submitted[0]?.text, `Indirim ${consented}`);
          const summary = (await reportBasic(h, p.apiKey, result.raporId)).body;
          assert.equal(summary.failed_count, 3, JSON.stringify(summary));
          assert.equal((summary.details as Record<string, unknown>).iys_skipped, 3);
          const rows = (await reportDetailed(h, p.apiKey, result.raporId)).body.data as {
            phone_number: string;
            details: { reason?: string; status_code: number };
          }[];
          const reasons = Object.fromEntries(rows.map((r) => [r.phone_number, r.details.reason ?? null]));
          assert.deepEqual(reasons, {
            [consented]: null,
            [unknown]: 'IYS_NO_CONSENT',
            [tacirOnly]: 'IYS_NO_CONSENT',
            [refused]: 'IYS_RET',
          });
          const events = [...(await failedEvents(h, p.keyId)).values()];
          assert.equal(events.length, 3, JSON.stringify(events));
          assert.equal(events.filter((e) => e?.reason === 'IYS_RET').length, 1);
        } finally {
          await delivery.stop();
        }
      });
    }

    it('a commercial send with no consented recipient is accepted, sends nothing and costs nothing', async () => {
      const p = await commercialAccount(h);
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const answer = await groupSend(h, p.apiKey, { sentto: [unknown, refused], iys: 1 });
        const result = assertBulkAccepted(answer);
        assert.equal(result.totalSmsCost, 0);
        assert.equal(answer.body.iys_skipped, 2);
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 100 });
        await drain(delivery);
        assert.equal(live.submitted.length, 0);
        const summary = (await reportBasic(h, p.apiKey, result.raporId)).body;
        assert.equal(summary.failed_count, 2, JSON.stringify(summary));
      } finally {
        await delivery.stop();
      }
    });

    it('a send without iys (or iys=0) is unchanged: every number sent and charged, no new field', async () => {
      const p = await commercialAccount(h);
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const numbers = [unknown, refused, consented];
        const single = await h.post('/sms/send', {
          api_key: p.apiKey,
          sentto: numbers.join(','),
          title: 'ACME',
          text: 'Hello',
          iys: 0,
        });
        assert.equal(single.body.success_count, 3, single.raw);
        assert.equal('iys_skipped' in single.body, false, single.raw);
        const bulk = await groupSend(h, p.apiKey, { sentto: numbers });
        const result = assertBulkAccepted(bulk);
        assert.equal(result.totalSmsCost, 3);
        assert.equal('iys_skipped' in bulk.body, false, bulk.raw);
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 994, international: 100 });
        await drain(delivery);
        assert.equal(live.submitted.length, 6);
        const summary = (await reportBasic(h, p.apiKey, result.raporId)).body;
        assert.equal('iys_skipped' in (summary.details as Record<string, unknown>), false);
        assert.equal((await failedEvents(h, p.keyId)).size, 0);
      } finally {
        await delivery.stop();
      }
    });

    it('a scheduled commercial /sms/send charges the consented only and writes the others out as failed', async () => {
      const p = await commercialAccount(h);
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const answer = await h.post('/sms/send', {
          api_key: p.apiKey,
          sentto: [refused, consented, unknown].join(','),
          title: 'ACME',
          text: 'Indirim',
          iys: 1,
          scheduled_date: '2026-03-15',
          scheduled_time: '13:00',
        });
        assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
        assert.equal(answer.body.iys_skipped, 2);
        assert.equal(answer.body.number_of_sms, 1);
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 999, international: 100 });
        h.clock.advance(2 * 3600_000);
        await drain(delivery);
        assert.deepEqual(
          live.submitted.map((m) => m.to),
          [consented],
        );
        const summary = (await reportBasic(h, p.apiKey, answer.body.sms_id)).body;
        assert.equal(summary.failed_count, 2, JSON.stringify(summary));
      } finally {
        await delivery.stop();
      }
    });
  });
}
