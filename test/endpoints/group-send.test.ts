/**
 * POST /group/send through HTTP: the rows of its error table that are its own, with the
 * spec's literal codes and statuses (the key, state, address, permission and body rows are
 * tested from the endpoint table in test/http/endpoint-table), the bulk
 * send result, de-duplication, the Türkiye count table for every number, scheduling with
 * scheduled_sms=1, and 50,000 numbers taken and written out. Checks that touch the store in
 * an interesting way run on every configured dialect.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, createLiveHarness, defaultNow } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { assertAccepted, assertRefused, balancesOf, sendSms, turkishNumbers } from '../helpers/sms.js';
import {
  assertBulkAccepted,
  detailedOf,
  drain,
  groupSend,
  reportBasic,
  reportDetailed,
  summaryOf,
  waitForSummary,
} from '../helpers/bulk.js';
import { localDate, localDateTime, localTime } from '../../src/domain/istanbul-time.js';
import { waitFor } from '../helpers/wait-for.js';

describe('/group/send: refused requests', () => {
  let h: Harness;
  let p: Provisioned;
  before(async () => {
    h = await createHarness();
    p = await h.provision({
      senderIds: [{ title: 'ACME' }, { title: 'PEND', status: 'pending' }, { title: 'REJ', status: 'rejected' }],
    });
  });
  after(async () => h.close());

  /** Refused, with no report id, and nothing charged for it. */
  async function refused(answer: Answer, code: string, status: number, apiKey = p.apiKey): Promise<void> {
    assertRefused(answer, code, status);
    assert.equal(answer.body.rapor_id, undefined, answer.raw);
    assert.equal(answer.headers['retry-after'], undefined, 'only limit failures carry Retry-After');
    if (apiKey === p.apiKey)
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 100 }, 'nothing charged');
  }

  const schedule = (date: unknown, time: unknown): Record<string, unknown> => ({
    scheduled_sms: 1,
    scheduled_date: date,
    scheduled_time: time,
  });
  const fieldCases: Array<[string, Record<string, unknown>, string]> = [
    ['title missing', { title: undefined }, 'TS-1029'],
    ['title empty', { title: '' }, 'TS-1029'],
    ['title a number', { title: 12345 }, 'TS-1029'],
    ['sentto missing', { sentto: undefined }, 'TS-1026'],
    ['sentto as comma-separated text', { sentto: '905321234567,905327654321' }, 'TS-1026'],
    ['sentto as one number in text', { sentto: '905321234567' }, 'TS-1026'],
    ['sentto an object', { sentto: { 0: '905321234567' } }, 'TS-1026'],
    ['sentto with an object item', { sentto: ['905321234567', { n: '905327654321' }] }, 'TS-1026'],
    ['sentto with an array item', { sentto: [['905321234567']] }, 'TS-1026'],
    ['sentto with a null item', { sentto: ['905321234567', null] }, 'TS-1026'],
    ['sentto with a boolean item', { sentto: [true] }, 'TS-1026'],
    ['sentto with a fractional number', { sentto: [905321234567.5] }, 'TS-1026'],
    ['sentto an empty array', { sentto: [] }, 'TS-1026'],
    ['sentto of empty and blank strings (no numbers after conversion)', { sentto: ['', '  ', '+-()'] }, 'TS-1026'],
    ['sentto of 50,001 items', { sentto: turkishNumbers(50_001) }, 'TS-1060'],
    [
      'sentto of 50,001 items that are one number repeated',
      { sentto: Array.from({ length: 50_001 }, () => '905321234567') },
      'TS-1060',
    ],
    ['text missing', { text: undefined }, 'TS-1033'],
    ['text empty', { text: '' }, 'TS-1033'],
    ['text whitespace only', { text: ' \n\t ' }, 'TS-1033'],
    ['text a number', { text: 42 }, 'TS-1033'],
    ['text an array (that is /group/sendMixed)', { text: ['Hello'] }, 'TS-1033'],
    ['text of 2,001 characters', { text: 'a'.repeat(2001) }, 'TS-1026'],
    ['sms_lang 3', { sms_lang: 3 }, 'TS-1033'],
    ['sms_lang -1', { sms_lang: -1 }, 'TS-1033'],
    ['sms_lang "x"', { sms_lang: 'x' }, 'TS-1033'],
    ['scheduled_sms 2', { scheduled_sms: 2 }, 'TS-1033'],
    ['scheduled_sms "yes"', { scheduled_sms: 'yes' }, 'TS-1033'],
    ['scheduled_sms=1 without date and time', { scheduled_sms: 1 }, 'TS-1070'],
    ['scheduled_sms=1 with scheduled_date 2026/03/20', schedule('2026/03/20', '10:00'), 'TS-1070'],
    ['scheduled_sms=1 without scheduled_time', { scheduled_sms: 1, scheduled_date: '2026-03-20' }, 'TS-1070'],
    ['scheduled_sms=1 with an empty scheduled_time', schedule('2026-03-20', ''), 'TS-1070'],
    ['scheduled_sms=1 with scheduled_time 9:5', schedule('2026-03-20', '9:5'), 'TS-1071'],
    ['scheduled_sms=1 with scheduled_time 10:00:00:00', schedule('2026-03-20', '10:00:00:00'), 'TS-1071'],
    ['scheduled_sms=1 with scheduled_time 25:99', schedule('2026-03-20', '25:99'), 'TS-1072'],
    ['scheduled_sms=1 with scheduled_date 2026-02-30', schedule('2026-02-30', '10:00'), 'TS-1072'],
    ['scheduled_sms=1 one second in the past', schedule('2026-03-15', '11:59:59'), 'TS-1072'],
    ['scheduled_sms=1 at the current second', schedule('2026-03-15', '12:00:00'), 'TS-1072'],
    // Date and time are sent only together with scheduled_sms=1.
    [
      'scheduled_date and scheduled_time without scheduled_sms',
      { scheduled_date: '2026-03-20', scheduled_time: '10:00' },
      'TS-1033',
    ],
    [
      'scheduled_date and scheduled_time with scheduled_sms=0',
      { scheduled_sms: 0, scheduled_date: '2026-03-20', scheduled_time: '10:00' },
      'TS-1033',
    ],
    ['scheduled_time alone', { scheduled_time: '10:00' }, 'TS-1033'],
    ['scheduled_date alone', { scheduled_date: '2026-03-20' }, 'TS-1033'],
    // Field order is check order: the first failing check answers.
    ['title and sentto missing (title answers first)', { title: undefined, sentto: undefined }, 'TS-1029'],
    ['sentto as text and text empty (sentto answers first)', { sentto: '905321234567', text: '' }, 'TS-1026'],
    ['50,001 items and text empty (the count answers first)', { sentto: turkishNumbers(50_001), text: '' }, 'TS-1060'],
    [
      'text of 2,001 characters and sms_lang 9 (text answers first)',
      { text: 'a'.repeat(2001), sms_lang: 9 },
      'TS-1026',
    ],
    [
      'a bad schedule and no numbers after conversion (schedule first)',
      { ...schedule('x', '10:00'), sentto: [''] },
      'TS-1070',
    ],
    [
      'a bad schedule and an unknown sender ID (request checks before the store)',
      { ...schedule('2026-03-15', '11:00'), title: 'OTHER' },
      'TS-1072',
    ],
    ['no numbers after conversion and an unknown sender ID', { sentto: [' '], title: 'OTHER' }, 'TS-1026'],
  ];
  for (const [name, fields, code] of fieldCases) {
    it(`answers ${name} with ${code} and HTTP 400`, async () => {
      await refused(await groupSend(h, p.apiKey, fields), code, 400);
    });
  }

  it('answers an unknown, pending, rejected or differently cased sender ID with TS-1028 and HTTP 403', async () => {
    for (const title of ['OTHER', 'PEND', 'REJ', 'acme'])
      await refused(await groupSend(h, p.apiKey, { title }), 'TS-1028', 403);
  });

  it('queued nothing for any refused request: the dispatcher finds no work', async () => {
    const delivery = await simulatedDelivery(h.runtime);
    try {
      assert.equal(await drain(delivery), 0);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 100 });
    } finally {
      await delivery.stop();
    }
  });
});

describe('/group/send: the bulk send result and counting', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  it('answers TS-1024 with rapor_id, total_numbers, total_sms_cost and scheduled false, and charges the total', async () => {
    const p = await h.provision();
    const answer = await groupSend(h, p.apiKey, {
      sentto: ['905321234567', '905327654321', '905421234567'],
      text: 'Merhaba',
      sms_lang: 1,
    });
    const result = assertBulkAccepted(answer);
    assert.deepEqual({ ...result, raporId: 0 }, { raporId: 0, totalNumbers: 3, totalSmsCost: 3, scheduled: false });
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 997, international: 100 });
    // Its rapor_id is a report of this account.
    const summary = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
    assert.equal(summary.rapor_id, result.raporId);
    assert.equal(summary.total_numbers, 3);
    assert.equal(summary.details.sms_sender_id, 'ACME');
  });

  it('accepts numbers as another name for sentto, and prefers sentto when both are sent', async () => {
    const p = await h.provision();
    const alias = assertBulkAccepted(
      await h.post('/group/send', {
        api_key: p.apiKey,
        title: 'ACME',
        text: 'Hello',
        numbers: ['905321234567', '905327654321'],
      }),
    );
    assert.equal(alias.totalNumbers, 2);
    const both = assertBulkAccepted(
      await groupSend(h, p.apiKey, {
        sentto: ['905321234567'],
        numbers: ['905321111111', '905321111112', '905321111113'],
      }),
    );
    assert.equal(both.totalNumbers, 1);
    // The alias follows the same rules: text is refused.
    assertRefused(
      await h.post('/group/send', { api_key: p.apiKey, title: 'ACME', text: 'Hello', numbers: '905321234567' }),
      'TS-1026',
      400,
    );
  });

  it('accepts numbers sent as JSON numbers, converted like strings', async () => {
    const p = await h.provision();
    const result = assertBulkAccepted(
      await groupSend(h, p.apiKey, { sentto: [905321234567, 5321234568, '05321234569'] }),
    );
    assert.equal(result.totalNumbers, 3);
    const delivery = await simulatedDelivery(h.runtime);
    try {
      await drain(delivery);
      const { data } = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
      assert.deepEqual(
        data.map((r) => r.phone_number),
        ['905321234567', '905321234568', '905321234569'],
      );
    } finally {
      await delivery.stop();
    }
  });

  it('queues a number once whatever its form, first-seen order kept, and charges it once', async () => {
    const p = await h.provision();
    const forms = [
      '0532 123 45 67',
      '+90 532 123 45 67',
      '90532 1234567',
      '905321234567',
      '0090 532 123 4567',
      '5321234567',
      '(0532) 123-45-67',
      905321234567,
    ];
    const one = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: forms }));
    assert.equal(one.totalNumbers, 1);
    assert.equal(one.totalSmsCost, 1);
    assert.equal((await balancesOf(h, p.apiKey)).main, 999);
    const two = assertBulkAccepted(
      await groupSend(h, p.apiKey, { sentto: ['05327654321', ...forms, '+90 532 765 43 21'] }),
    );
    assert.equal(two.totalNumbers, 2);
    assert.equal(two.totalSmsCost, 2);
    const delivery = await simulatedDelivery(h.runtime);
    try {
      await drain(delivery);
      const { data, pagination } = detailedOf(await reportDetailed(h, p.apiKey, two.raporId));
      assert.equal(pagination.total_records, 2);
      assert.deepEqual(
        data.map((r) => r.phone_number),
        ['905327654321', '905321234567'],
      );
    } finally {
      await delivery.stop();
    }
  });

  /** [sentto, text, sms_lang, total_sms_cost, main charged, international charged] */
  const counts: Array<[string[], string, number | undefined, number, number, number]> = [
    [['905321234567'], 'a'.repeat(160), 0, 1, 1, 0],
    [['905321234567'], 'a'.repeat(161), 0, 2, 2, 0],
    [['905321234567'], 'a'.repeat(1070), 0, 7, 7, 0],
    [['905321234567'], 'a'.repeat(1071), 0, 8, 8, 0],
    [['905321234567'], 'a'.repeat(2000), 0, 8, 8, 0],
    [['905321234567'], 'ş'.repeat(155), 1, 1, 1, 0],
    [['905321234567'], 'ş'.repeat(156), 1, 2, 2, 0],
    [['905321234567'], 'ع'.repeat(65), 2, 1, 1, 0],
    [['905321234567'], 'ع'.repeat(66), undefined, 2, 2, 0],
    // The Türkiye table for every number: international ones too (their own table would
    // give 2, 3 and 1 here). They are still charged to the international balance.
    [['447700900123'], 'a'.repeat(71), 0, 1, 0, 1],
    [['447700900123'], 'a'.repeat(160), 0, 1, 0, 1],
    [['00447700900123'], 'ع'.repeat(66), 2, 2, 0, 2],
    [['905321234567', '447700900123'], 'a'.repeat(71), 0, 2, 1, 1],
    // The total is the sum over the numbers.
    [['905321111111', '905321111112', '905321111113'], 'a'.repeat(161), 0, 6, 6, 0],
    // TS-L counts as the one line break it becomes: 163 characters sent, 160 counted.
    [['905321234567'], `${'a'.repeat(157)}TS-Lbb`, 0, 1, 1, 0],
    [['905321234567'], `${'a'.repeat(158)}TS-Lbb`, 0, 2, 2, 0],
  ];
  for (const [sentto, text, lang, expected, main, international] of counts) {
    it(`counts ${text.length} characters, sms_lang ${String(lang)}, to ${sentto.join(' and ')} as ${expected} SMS and charges exactly that`, async () => {
      const p = await h.provision();
      const result = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto, text, sms_lang: lang }));
      assert.equal(result.totalSmsCost, expected);
      assert.equal(result.totalNumbers, sentto.length);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000 - main, international: 100 - international });
    });
  }

  it('counts a 71-character English text to an international number as 1 SMS here and 2 on /sms/send', async () => {
    const p = await h.provision();
    const fields = { text: 'a'.repeat(71), sms_lang: 0 };
    assert.equal(
      assertBulkAccepted(await groupSend(h, p.apiKey, { ...fields, sentto: ['447700900123'] })).totalSmsCost,
      1,
    );
    const single = await sendSms(h, p.apiKey, { ...fields, sentto: '447700900123' });
    assertAccepted(single);
    assert.equal(single.body.number_of_sms, 2);
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 97 });
  });

  it('sends at once with scheduled_sms 0 or absent, and empty date and time are no schedule', async () => {
    const p = await h.provision();
    for (const fields of [
      {},
      { scheduled_sms: 0 },
      { scheduled_sms: '0' },
      { scheduled_date: '', scheduled_time: '' },
    ]) {
      assert.equal(assertBulkAccepted(await groupSend(h, p.apiKey, fields)).scheduled, false, JSON.stringify(fields));
    }
  });

  it('takes 50,000 numbers written in the longest usual form, a body over the default 1 MiB limit', async () => {
    const p = await h.provision({ account: { balanceMain: 50_000 } });
    const sentto = turkishNumbers(50_000).map(
      (n) => `+90 (${n.slice(2, 5)}) ${n.slice(5, 8)} ${n.slice(8, 10)} ${n.slice(10)}`,
    );
    assert.ok(JSON.stringify(sentto).length > 1024 * 1024);
    const result = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto }));
    assert.equal(result.totalNumbers, 50_000);
    assert.equal((await balancesOf(h, p.apiKey)).main, 0);
    // The limit holds under the other name too.
    assertRefused(
      await h.post('/group/send', { api_key: p.apiKey, title: 'ACME', text: 'Hello', numbers: turkishNumbers(50_001) }),
      'TS-1060',
      400,
    );
  });

  it("is not held back by the per-minute limit, and its numbers do not count against /sms/send's", async () => {
    const p = await h.provision({ account: { perMinuteLimit: 2 } });
    assert.equal(assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: turkishNumbers(5, 100) })).totalNumbers, 5);
    assertAccepted(await sendSms(h, p.apiKey, { sentto: '905321111111,905321111112' }));
    assertRefused(await sendSms(h, p.apiKey, { sentto: '905321111113' }), 'TS-1060', 429);
    assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: turkishNumbers(5, 200) }));
  });

  it('refuses a form-encoded sentto (one text value, not an array) with TS-1026', async () => {
    const p = await h.provision();
    const form = new URLSearchParams({ api_key: p.apiKey, title: 'ACME', text: 'Hello', sentto: '905321234567' });
    assertRefused(
      await h.post('/group/send', undefined, {
        raw: form.toString(),
        contentType: 'application/x-www-form-urlencoded',
      }),
      'TS-1026',
      400,
    );
  });
});

for (const dialect of testDialects()) {
  describeOn(dialect, `/group/send on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it('refuses a send the balance does not cover with TS-1027 and HTTP 403, queuing and charging nothing', async () => {
      const p = await h.provision({ account: { balanceMain: 2, balanceInternational: 5 } });
      const delivery = await simulatedDelivery(h.runtime);
      try {
        const short = await groupSend(h, p.apiKey, { sentto: ['905321234567', '905327654321', '905421234567'] });
        assertRefused(short, 'TS-1027', 403);
        assert.equal(short.body.rapor_id, undefined);
        // The main balance covers its part (2) but the international one does not (6 of 5):
        // nothing is charged.
        const split = await groupSend(h, p.apiKey, {
          sentto: ['905321234567', '447700900123', '447700900124', '447700900125'],
          text: 'a'.repeat(161),
          sms_lang: 0,
        });
        assertRefused(split, 'TS-1027', 403);
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 2, international: 5 });
        assert.equal(await drain(delivery), 0, 'nothing was queued');
        // A balance that covers the total exactly is enough.
        assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: ['905321234567', '905327654321'] }));
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 0, international: 5 });
        assert.equal(await drain(delivery), 2);
      } finally {
        await delivery.stop();
      }
    });

    it('charges concurrent sends of one account against one balance: only those it covers are queued', async () => {
      const p = await h.provision({ account: { balanceMain: 7 } });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => groupSend(h, p.apiKey, { sentto: turkishNumbers(2, 1_000 + 2 * i) })),
      );
      const accepted = answers.filter((a) => a.body.result_code === 'TS-1024');
      assert.equal(accepted.length, 3, answers.map((a) => a.body.result_code).join(' '));
      for (const a of answers.filter((x) => x.body.result_code !== 'TS-1024')) assertRefused(a, 'TS-1027', 403);
      assert.equal((await balancesOf(h, p.apiKey)).main, 1);
      const ids = accepted.map((a) => assertBulkAccepted(a).raporId);
      assert.equal(new Set(ids).size, 3);
      for (const id of ids) assert.equal(summaryOf(await reportBasic(h, p.apiKey, id)).total_numbers, 2);
      const delivery = await simulatedDelivery(h.runtime);
      try {
        assert.equal(await drain(delivery), 6, 'the refused sends queued nothing');
      } finally {
        await delivery.stop();
      }
    });

    it('counts invalid numbers in details.invalid_numbers and failed_count, charges wrong numbers but not entries that are no number, and never submits them', async () => {
      const p = await h.provision();
      const sentto = [
        '905321231234',
        '12345',
        'abc',
        '9053212345678',
        '905321235678',
        '+1 (202) 555-0123',
        'hello-world',
      ];
      const result = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto }));
      assert.equal(result.totalNumbers, 7, 'numbers are not validated one by one');
      assert.equal(result.totalSmsCost, 5, 'abc and hello-world cannot be numbers: not charged');
      // 905... numbers are charged to the main balance, the others to the international one.
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 997, international: 98 });
      const before = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
      assert.equal(before.details.invalid_numbers, 4);
      assert.equal(before.details.blocked_numbers, 0);
      const delivery = await simulatedDelivery(h.runtime);
      try {
        assert.equal(await drain(delivery), 3, 'only the three valid numbers are submitted');
        const summary = await waitForSummary(h, p.apiKey, result.raporId, delivery, (s) => s.pending_count === 0);
        assert.deepEqual(
          [summary.success_count, summary.failed_count, summary.pending_count, summary.details.invalid_numbers],
          [3, 4, 0, 4],
        );
        const { data } = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
        const invalid = data.filter((r) => ['12345', 'abc', '9053212345678', 'helloworld'].includes(r.phone_number));
        assert.equal(invalid.length, 4);
        for (const row of invalid) {
          assert.equal(row.details.status_code, 0);
          assert.equal(row.details.operator, 'UNKNOWN');
          assert.notEqual(row.details.done_at, '', 'an invalid number is final at once');
        }
        assert.equal(data.find((r) => r.phone_number === '12025550123')?.details.operator, 'INTERNATIONAL');
      } finally {
        await delivery.stop();
      }
    });

    it('schedules with scheduled_sms=1: charged at once, nothing written or sent before the time, everything after', async () => {
      const p = await h.provision();
      const delivery = await simulatedDelivery(h.runtime);
      try {
        const sentto = ['905321231234', '905421235678', '905051239876'];
        // 12:00:00 now; scheduled five seconds later, Istanbul time.
        const result = assertBulkAccepted(
          await groupSend(h, p.apiKey, {
            sentto,
            scheduled_sms: 1,
            scheduled_date: '2026-03-15',
            scheduled_time: '12:00:05',
          }),
        );
        assert.equal(result.scheduled, true);
        assert.equal(result.totalNumbers, 3);
        assert.equal((await balancesOf(h, p.apiKey)).main, 997, 'charged at request time');
        const waiting = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
        assert.deepEqual([waiting.success_count, waiting.failed_count, waiting.pending_count], [0, 0, 3]);
        assert.equal(waiting.details.report_status, 'Scheduled: waiting for the scheduled time');
        const empty = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
        assert.deepEqual(empty.data, []);
        assert.deepEqual(empty.pagination, {
          current_page: 1,
          total_pages: 0,
          total_records: 0,
          records_per_page: 500,
        });

        assert.equal(await delivery.runOnce(), 0);
        h.clock.advance(4_000);
        assert.equal(await delivery.runOnce(), 0, 'nothing due one second before the time');
        assert.equal(detailedOf(await reportDetailed(h, p.apiKey, result.raporId)).pagination.total_records, 0);
        h.clock.advance(1_000);
        assert.equal(await delivery.runOnce(), 3);
        const { data } = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
        assert.deepEqual(
          data.map((r) => r.phone_number),
          sentto,
        );
        for (const row of data) assert.equal(row.sent_at, '2026-03-15 12:00:05');
        const done = await waitForSummary(h, p.apiKey, result.raporId, delivery, (s) => s.success_count === 3);
        // The report's date and time are when it was created, not when it was sent.
        assert.equal(done.details.sending_date, '2026-03-15');
        assert.equal(done.details.sending_time, '12:00:00');
        assert.equal(done.details.report_status, 'Completed');
        assert.equal((await balancesOf(h, p.apiKey)).main, 997, 'nothing more charged when sent');
      } finally {
        await delivery.stop();
      }
    });

    it('accepts scheduled_sms as "1", a time as HH:MM, and a day far ahead', async () => {
      const p = await h.provision();
      const delivery = await simulatedDelivery(h.runtime);
      try {
        const result = assertBulkAccepted(
          await groupSend(h, p.apiKey, { scheduled_sms: '1', scheduled_date: '2027-01-01', scheduled_time: '00:00' }),
        );
        assert.equal(result.scheduled, true);
        const records = async (): Promise<number> =>
          detailedOf(await reportDetailed(h, p.apiKey, result.raporId)).pagination.total_records;
        await delivery.runOnce();
        h.clock.set(Date.UTC(2026, 11, 31, 20, 59, 59));
        await delivery.runOnce();
        assert.equal(await records(), 0, 'not before midnight in Istanbul (21:00 UTC)');
        h.clock.set(Date.UTC(2026, 11, 31, 21, 0, 0));
        await delivery.runOnce();
        assert.equal(await records(), 1);
      } finally {
        h.clock.set(defaultNow);
        await delivery.stop();
      }
    });
  });
}

for (const dialect of testDialects()) {
  describeOn(dialect, `/group/send of 50,000 numbers on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it('takes 50,000 numbers and writes them all out; refuses 50,001 with TS-1060 and HTTP 400', async () => {
      const p = await h.provision({ account: { balanceMain: 200_000 } });
      const over = await groupSend(h, p.apiKey, { sentto: turkishNumbers(50_001) });
      assertRefused(over, 'TS-1060', 400);
      assert.equal((await balancesOf(h, p.apiKey)).main, 200_000);
      const result = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: turkishNumbers(50_000) }));
      assert.equal(result.totalNumbers, 50_000);
      assert.equal(result.totalSmsCost, 50_000);
      assert.equal((await balancesOf(h, p.apiKey)).main, 150_000);
      const delivery = await simulatedDelivery(h.runtime);
      try {
        let records = 0;
        for (let round = 0; round < 50 && records < 50_000; round++) {
          await delivery.runOnce();
          records = detailedOf(await reportDetailed(h, p.apiKey, result.raporId)).pagination.total_records;
        }
        assert.equal(records, 50_000);
        const last = detailedOf(await reportDetailed(h, p.apiKey, result.raporId, 100));
        assert.deepEqual(last.pagination, {
          current_page: 100,
          total_pages: 100,
          total_records: 50_000,
          records_per_page: 500,
        });
        assert.equal(last.data.length, 500);
        assert.equal(last.data.at(-1)?.phone_number, turkishNumbers(1, 49_999)[0]);
        const summary = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
        assert.equal(summary.total_numbers, 50_000);
        assert.equal(summary.success_count + summary.failed_count + summary.pending_count, 50_000);
      } finally {
        await delivery.stop();
      }
    });
  });
}

describe('/group/send scheduled, with the system clock', () => {
  it('is written out and sent after its time and not before', async () => {
    const h = await createLiveHarness();
    const delivery = await simulatedDelivery(h.runtime, { background: true });
    try {
      const p = await h.provision();
      // A whole second at least two seconds ahead (scheduled_time has a resolution of seconds).
      const at = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
      const sentto = ['905321231234', '905421235678'];
      const result = assertBulkAccepted(
        await groupSend(h, p.apiKey, {
          sentto,
          scheduled_sms: 1,
          scheduled_date: localDate(at),
          scheduled_time: localTime(at),
        }),
      );
      assert.equal(result.scheduled, true);
      const records = async (): Promise<number> =>
        detailedOf(await reportDetailed(h, p.apiKey, result.raporId)).pagination.total_records;
      await waitFor('the scheduled time to come', async () => {
        const written = await records();
        // Read before the time (the answer came back before it): nothing may be written out yet.
        if (Date.now() < at) assert.equal(written, 0, 'nothing written out before the time');
        return Date.now() >= at;
      });
      await waitFor(
        'the scheduled send to be delivered',
        async () => summaryOf(await reportBasic(h, p.apiKey, result.raporId)).success_count === 2,
        { timeoutMs: 10_000 },
      );
      const { data } = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
      for (const row of data)
        assert.ok(row.sent_at >= localDateTime(at), `sent at ${row.sent_at}, scheduled for ${localDateTime(at)}`);
    } finally {
      await delivery.stop();
      await h.close();
    }
  });
});
