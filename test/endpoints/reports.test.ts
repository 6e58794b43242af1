/**
 * POST /reports/basic and /reports/detailed through HTTP: the status envelope, the refusals
 * of their error table that are theirs (200 for a report that is missing or not the
 * caller's; the permission and key rows, HTTP 400 here, are tested from the endpoint table
 * in test/http/endpoint-table), which ids are reports, the summary counters as the
 * simulator's outcomes arrive (they add up to total_numbers at every moment), the
 * report_status texts, the detailed rows' fields and pagination.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, createLiveHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery, storedMessage } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertAccepted, intField, sendSms, turkishNumbers } from '../helpers/sms.js';
import {
  assertBulkAccepted,
  assertStatusRefused,
  detailedOf,
  drain,
  groupSend,
  numbersEnding,
  reportBasic,
  reportDetailed,
  summaryOf,
  waitForSummary,
} from '../helpers/bulk.js';
import type { Summary } from '../helpers/bulk.js';
import { simulatedOutcome } from '../../src/domain/simulator-outcome.js';
import { pause } from '../helpers/wait-for.js';

const paths = ['/reports/basic', '/reports/detailed'] as const;

describe('/reports/basic and /reports/detailed: refused requests', () => {
  let h: Harness;
  let p: Provisioned;
  let raporId: number;
  before(async () => {
    h = await createHarness();
    p = await h.provision();
    raporId = assertBulkAccepted(await groupSend(h, p.apiKey)).raporId;
  });
  after(async () => h.close());

  for (const path of paths) {
    const badIds: Array<[string, unknown]> = [
      ['missing', undefined],
      ['empty', ''],
      ['null', null],
      ['"abc"', 'abc'],
      ['1.5', 1.5],
      ['an array', [1]],
    ];
    for (const [name, value] of badIds) {
      it(`${path} answers raporid ${name} with TS-1029 and HTTP 400`, async () => {
        const body = value === undefined ? { api_key: p.apiKey } : { api_key: p.apiKey, raporid: value };
        assertStatusRefused(await h.post(path, body), 'TS-1029', 400);
      });
    }

    it(`${path} answers a report that does not exist with TS-1029 and HTTP 200`, async () => {
      for (const id of [raporId + 1_000_000, 0, -1])
        assertStatusRefused(await h.post(path, { api_key: p.apiKey, raporid: id }), 'TS-1029', 200);
    });

    it(`${path} answers another account's report with TS-1029 and HTTP 200, and the owner's with TS-1064`, async () => {
      const other = await h.provision();
      assertStatusRefused(await h.post(path, { api_key: other.apiKey, raporid: raporId }), 'TS-1029', 200);
      const own = await h.post(path, { api_key: p.apiKey, raporid: raporId });
      assert.equal(own.body.result_code, 'TS-1064', own.raw);
    });

    it(`${path} accepts raporid as a string of digits`, async () => {
      const answer = await h.post(path, { api_key: p.apiKey, raporid: String(raporId) });
      assert.equal(answer.body.result_code, 'TS-1064', answer.raw);
    });
  }

  const badPages: Array<[string, unknown]> = [
    ['0', 0],
    ['-1', -1],
    ['"x"', 'x'],
    ['1.5', 1.5],
    ['"0"', '0'],
    ['an array', [1]],
  ];
  for (const [name, page] of badPages) {
    it(`/reports/detailed answers page ${name} with TS-1033 and HTTP 400`, async () => {
      assertStatusRefused(await reportDetailed(h, p.apiKey, raporId, page), 'TS-1033', 400);
    });
  }

  it('/reports/detailed checks raporid before page', async () => {
    assertStatusRefused(await reportDetailed(h, p.apiKey, 'abc', 0), 'TS-1029', 400);
  });

  for (const path of ['/reports/foo', '/reports/detailed/x', '/reports/', '/reports/Basic']) {
    it(`${path} (a wrong path) answers 404 in the status envelope with TS-1033`, async () => {
      assertStatusRefused(await h.post(path, { api_key: p.apiKey, raporid: raporId }), 'TS-1033', 404);
    });
  }
});

for (const dialect of testDialects()) {
  describeOn(dialect, `reports on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it("an immediate /sms/send's ids are not reports; a scheduled /sms/send's sms_id is one, in both endpoints", async () => {
      const p = await h.provision();
      const delivery = await simulatedDelivery(h.runtime);
      try {
        const immediate = await sendSms(h, p.apiKey, { sentto: '905321231234' });
        assertAccepted(immediate);
        const smsId = intField(immediate, 'sms_id');
        const sendId = (await storedMessage(h.runtime, p.accountId, smsId)).sendId;
        for (const id of [smsId, sendId]) {
          assertStatusRefused(await reportBasic(h, p.apiKey, id), 'TS-1029', 200);
          assertStatusRefused(await reportDetailed(h, p.apiKey, id), 'TS-1029', 200);
        }

        const scheduled = await sendSms(h, p.apiKey, {
          sentto: '905321231234,905421235678',
          scheduled_date: '2026-03-15',
          scheduled_time: '12:01',
        });
        assertAccepted(scheduled);
        const reportId = intField(scheduled, 'sms_id');
        const waiting = summaryOf(await reportBasic(h, p.apiKey, reportId));
        assert.equal(waiting.rapor_id, reportId);
        assert.deepEqual(
          [waiting.total_numbers, waiting.success_count, waiting.failed_count, waiting.pending_count],
          [2, 0, 0, 2],
        );
        assert.equal(waiting.details.report_status, 'Scheduled: waiting for the scheduled time');
        assert.equal(waiting.details.sms_sender_id, 'ACME');
        // A scheduled send not started has no rows yet.
        const notStarted = detailedOf(await reportDetailed(h, p.apiKey, reportId));
        assert.deepEqual(notStarted.data, []);
        assert.deepEqual(notStarted.pagination, {
          current_page: 1,
          total_pages: 0,
          total_records: 0,
          records_per_page: 500,
        });

        h.clock.advance(60_000);
        await drain(delivery);
        const done = await waitForSummary(h, p.apiKey, reportId, delivery, (s) => s.success_count === 2);
        assert.equal(done.details.report_status, 'Completed');
        assert.deepEqual(
          detailedOf(await reportDetailed(h, p.apiKey, reportId)).data.map((r) => [
            r.phone_number,
            r.details.status_code,
            r.sent_at,
          ]),
          [
            ['905321231234', 1, '2026-03-15 12:01:00'],
            ['905421235678', 1, '2026-03-15 12:01:00'],
          ],
        );
      } finally {
        h.clock.advance(-60_000);
        await delivery.stop();
      }
    });

    it('report_status moves from Scheduled to Queued, Sending, Sent and Completed, and the counters with it', async () => {
      const own = await createHarness(await dialect.location());
      const live = new RecordingCarrier('live', (m) => ({ kind: 'accepted', carrierMessageIds: [`c-${m.messageId}`] }));
      const delivery = await simulatedDelivery(own.runtime, { live });
      try {
        const p = await own.provision();
        const sentto = numbersEnding('1234', 250);
        const result = assertBulkAccepted(
          await groupSend(own, p.apiKey, {
            sentto,
            scheduled_sms: 1,
            scheduled_date: '2026-03-15',
            scheduled_time: '12:00:10',
          }),
        );
        const status = async (): Promise<Summary> => summaryOf(await reportBasic(own, p.apiKey, result.raporId));
        const counters = (s: Summary): number[] => [s.success_count, s.failed_count, s.pending_count];

        let s = await status();
        assert.equal(s.details.report_status, 'Scheduled: waiting for the scheduled time');
        assert.deepEqual(counters(s), [0, 0, 250]);
        assert.equal(s.details.last_update, '2026-03-15 12:00:00');

        own.clock.advance(10_000);
        s = await status();
        assert.equal(s.details.report_status, 'Queued: waiting to be sent');

        // One round writes every recipient out and submits one batch (200).
        assert.equal(await delivery.runOnce(), 200);
        s = await status();
        assert.equal(s.details.report_status, 'Sending');
        assert.deepEqual(counters(s), [0, 0, 250]);
        assert.equal(s.details.last_update, '2026-03-15 12:00:10');

        assert.equal(await delivery.runOnce(), 50);
        s = await status();
        assert.equal(s.details.report_status, 'Sent: waiting for delivery reports');

        own.clock.advance(5_000);
        const ids = live.submitted.map((m) => m.messageId);
        await Promise.all(
          ids.slice(0, 100).map((id) =>
            delivery.dispatcher.onReceipt({
              carrierMessageId: `c-${id}`,
              status: 'delivered',
              doneAt: own.clock.now(),
            }),
          ),
        );
        s = await status();
        assert.deepEqual(counters(s), [100, 0, 150]);
        assert.equal(s.details.report_status, 'Sent: waiting for delivery reports');
        assert.equal(s.details.last_update, '2026-03-15 12:00:15');

        await Promise.all(
          ids.slice(100, 110).map((id) =>
            delivery.dispatcher.onReceipt({
              carrierMessageId: `c-${id}`,
              status: 'expired',
              doneAt: own.clock.now(),
            }),
          ),
        );
        await Promise.all(
          ids
            .slice(110)
            .map((id) =>
              delivery.dispatcher.onReceipt({ carrierMessageId: `c-${id}`, status: 'failed', doneAt: own.clock.now() }),
            ),
        );
        s = await status();
        assert.deepEqual(counters(s), [100, 150, 0]);
        assert.equal(s.details.report_status, 'Completed');
      } finally {
        await delivery.stop();
        await own.close();
      }
    });

    it('detailed rows: phone_number, sent_at, sms_status and status_code by outcome, done_at once final, operator labels', async () => {
      const own = await createHarness(await dialect.location());
      // The simulator's outcomes, reported when the test says so (at 12:00:07).
      const live = new RecordingCarrier('live', (m) => ({ kind: 'accepted', carrierMessageIds: [`c-${m.messageId}`] }));
      const delivery = await simulatedDelivery(own.runtime, { live });
      try {
        const p = await own.provision();
        const sentto = [
          '905321230000',
          '905421230001',
          '905051230002',
          '905321231234',
          '905338412345',
          '905428612345',
          '905551234567',
          '447700900123',
          '5101234567',
          'abc',
        ];
        const result = assertBulkAccepted(await groupSend(own, p.apiKey, { sentto }));
        // Written out and submitted at 12:00:02; reports arrive at 12:00:07.
        own.clock.advance(2_000);
        assert.equal(await drain(delivery), 9);
        own.clock.advance(5_000);
        for (const m of live.submitted) {
          const outcome = simulatedOutcome(m.to);
          if (outcome !== 'no-report' && outcome !== 'refused')
            await delivery.dispatcher.onReceipt({
              carrierMessageId: `c-${m.messageId}`,
              status: outcome,
              doneAt: own.clock.now(),
            });
        }
        const summary = await waitForSummary(own, p.apiKey, result.raporId, delivery, (s) => s.pending_count === 1);
        assert.deepEqual(
          [
            summary.total_numbers,
            summary.success_count,
            summary.failed_count,
            summary.pending_count,
            summary.details.invalid_numbers,
            summary.details.blocked_numbers,
          ],
          [10, 6, 3, 1, 1, 0],
        );
        assert.equal(summary.details.last_update, '2026-03-15 12:00:07');
        assert.equal(summary.details.sending_date, '2026-03-15');
        assert.equal(summary.details.sending_time, '12:00:00');
        const received = 'Number received the message';
        const notReceived = "Number didn't receive the message";
        const row = (phone: string, status: string, code: number, doneAt: string, operator: string): unknown => ({
          phone_number: phone,
          sent_at: '2026-03-15 12:00:02',
          sms_status: status,
          details: { done_at: doneAt, status_code: code, operator },
        });
        const at = '2026-03-15 12:00:07';
        const { data, pagination } = detailedOf(await reportDetailed(own, p.apiKey, result.raporId));
        assert.deepEqual(data, [
          row('905321230000', notReceived, 0, at, 'TURKCELL'),
          row('905421230001', 'Expiration time', 2, at, 'VODAFONE'),
          row('905051230002', notReceived, 0, '', 'TURK TELEKOM'),
          row('905321231234', received, 1, at, 'TURKCELL'),
          row('905338412345', received, 1, at, 'KKTCELL'),
          row('905428612345', received, 1, at, 'KKTC TELSIM'),
          row('905551234567', received, 1, at, 'TURK TELEKOM'),
          row('447700900123', received, 1, at, 'INTERNATIONAL'),
          row('905101234567', received, 1, at, 'UNKNOWN'),
          // Never submitted: sent_at is when it was recorded, and it is final at once.
          row('abc', notReceived, 0, '2026-03-15 12:00:02', 'UNKNOWN'),
        ]);
        assert.deepEqual(pagination, { current_page: 1, total_pages: 1, total_records: 10, records_per_page: 500 });
        for (const r of data) assert.match(r.sent_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      } finally {
        await delivery.stop();
        await own.close();
      }
    });

    for (const count of [501, 1_001]) {
      it(`pages ${count} recipients 500 at a time; pages after the last are empty with the pagination still right`, async () => {
        const p = await h.provision({ account: { balanceMain: 10_000 } });
        const sentto = turkishNumbers(count, 700_000);
        const result = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto }));
        // Not written out yet: no rows.
        const early = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
        assert.deepEqual(early.data, []);
        assert.equal(early.pagination.total_records, 0);

        const delivery = await simulatedDelivery(h.runtime);
        try {
          await delivery.runOnce();
        } finally {
          await delivery.stop();
        }
        const totalPages = Math.ceil(count / 500);
        const phones: string[] = [];
        for (let page = 1; page <= totalPages + 1; page++) {
          const { data, pagination } = detailedOf(await reportDetailed(h, p.apiKey, result.raporId, page));
          assert.deepEqual(pagination, {
            current_page: page,
            total_pages: totalPages,
            total_records: count,
            records_per_page: 500,
          });
          assert.equal(
            data.length,
            page < totalPages ? 500 : page === totalPages ? count - 500 * (totalPages - 1) : 0,
            `page ${page}`,
          );
          phones.push(...data.map((r) => r.phone_number));
        }
        assert.deepEqual(phones, sentto, 'every recipient once, in order');
        const far = detailedOf(await reportDetailed(h, p.apiKey, result.raporId, 1_000));
        assert.deepEqual(far.data, []);
        assert.equal(far.pagination.current_page, 1_000);
        // page is optional (default 1) and may be a string of digits. (The same recipients: a
        // receipt the simulator still owes may change a row's state between the two reads.)
        const numbersOf = async (page?: number): Promise<string[]> =>
          detailedOf(await reportDetailed(h, p.apiKey, result.raporId, page)).data.map((r) => r.phone_number);
        assert.deepEqual(await numbersOf(), await numbersOf(1));
        assert.equal(detailedOf(await reportDetailed(h, p.apiKey, result.raporId, '2')).pagination.current_page, 2);
      });
    }
  });

  describeOn(dialect, `report counters with the dispatcher running, on ${dialect.name}`, () => {
    it("converge to the simulator's outcomes and add up to total_numbers at every poll", async () => {
      const h = await createLiveHarness(await dialect.location());
      const delivery = await simulatedDelivery(h.runtime, { background: true, delayMs: 20 });
      try {
        const p = await h.provision({ account: { balanceMain: 10_000, balanceInternational: 100 } });
        const failed = numbersEnding('0000', 40, '90532');
        const expired = numbersEnding('0001', 40, '90542');
        const silent = numbersEnding('0002', 40, '90505');
        const delivered = numbersEnding('1234', 600, '9053');
        const invalid = ['12345', 'abc', '9053212345678'];
        const sentto = [
          ...delivered.slice(0, 300),
          ...failed,
          ...invalid,
          ...expired,
          ...silent,
          ...delivered.slice(300),
        ];
        const result = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto }));
        assert.equal(result.totalNumbers, 723);

        let polls = 0;
        let last: Summary | null = null;
        const deadline = Date.now() + 30_000;
        for (;;) {
          const s = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
          polls += 1;
          assert.equal(s.total_numbers, 723);
          assert.equal(s.success_count + s.failed_count + s.pending_count, 723, `poll ${polls}: ${JSON.stringify(s)}`);
          assert.ok(
            s.success_count <= 600 && s.failed_count <= 83 && s.pending_count >= 40,
            `poll ${polls}: ${JSON.stringify(s)}`,
          );
          assert.equal(s.details.invalid_numbers, 3);
          if (last) {
            assert.ok(
              s.success_count >= last.success_count && s.failed_count >= last.failed_count,
              `counters never go back: ${JSON.stringify(last)} then ${JSON.stringify(s)}`,
            );
          }
          last = s;
          if (s.success_count === 600 && s.failed_count === 83) break;
          assert.ok(Date.now() < deadline, `counters did not converge: ${JSON.stringify(s)}`);
          await pause(5);
        }
        assert.ok(polls > 1, 'the counters were watched while they moved');
        assert.equal(last.pending_count, 40, 'the numbers ending 0002 never get a report');
        assert.equal(last.details.report_status, 'Sent: waiting for delivery reports');
        const codes = new Map<string, number>();
        for (let page = 1; page <= 2; page++)
          for (const r of detailedOf(await reportDetailed(h, p.apiKey, result.raporId, page)).data)
            codes.set(r.phone_number, r.details.status_code);
        assert.equal(codes.size, 723);
        for (const n of delivered) assert.equal(codes.get(n), 1, n);
        for (const n of expired) assert.equal(codes.get(n), 2, n);
        for (const n of [...failed, ...silent, ...invalid]) assert.equal(codes.get(n), 0, n);
      } finally {
        await delivery.stop();
        await h.close();
      }
    });
  });
}
