/**
 * POST /group/sendMixed through HTTP: text[i] to sentto[i]. The rows of its error table
 * that are its own, with the spec's literal codes and statuses (the key, state, address,
 * permission and body rows are tested from the endpoint table in
 * test/http/endpoint-table), the text array's own rules (an array of the
 * same length, no empty or non-string text), de-duplication of identical number-and-text
 * pairs only, the Türkiye table per text, scheduling, and 50,000 pairs taken and written out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertRefused, balancesOf, turkishNumbers } from '../helpers/sms.js';
import {
  assertBulkAccepted,
  detailedOf,
  drain,
  groupSendMixed,
  reportBasic,
  reportDetailed,
  summaryOf,
  waitForSummary,
} from '../helpers/bulk.js';

describe('/group/sendMixed: refused requests', () => {
  let h: Harness;
  let p: Provisioned;
  before(async () => {
    h = await createHarness();
    p = await h.provision({ senderIds: [{ title: 'ACME' }, { title: 'PEND', status: 'pending' }] });
  });
  after(async () => h.close());

  /** Refused, with no report id, and nothing charged for it. */
  async function refused(answer: Answer, code: string, status: number): Promise<void> {
    assertRefused(answer, code, status);
    assert.equal(answer.body.rapor_id, undefined, answer.raw);
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 100 }, 'nothing charged');
  }

  const two = { sentto: ['905321234567', '905327654321'] };
  const schedule = (date: unknown, time: unknown): Record<string, unknown> => ({
    scheduled_sms: 1,
    scheduled_date: date,
    scheduled_time: time,
  });
  const fieldCases: Array<[string, Record<string, unknown>, string]> = [
    ['title missing', { title: undefined }, 'TS-1029'],
    ['title empty', { title: '' }, 'TS-1029'],
    ['sentto missing', { sentto: undefined }, 'TS-1026'],
    ['sentto as comma-separated text', { sentto: '905321234567,905327654321', text: ['a', 'b'] }, 'TS-1026'],
    ['sentto with an object item', { sentto: [{ n: '905321234567' }] }, 'TS-1026'],
    ['sentto and text empty arrays', { sentto: [], text: [] }, 'TS-1026'],
    ['sentto of a blank number', { sentto: ['  '] }, 'TS-1026'],
    [
      'sentto of 50,001 items',
      { sentto: turkishNumbers(50_001), text: Array.from({ length: 50_001 }, () => 'Hi') },
      'TS-1060',
    ],
    ['text missing', { text: undefined }, 'TS-1033'],
    ['text a string, not an array', { text: 'Hello' }, 'TS-1033'],
    ['text an object', { text: { 0: 'Hello' } }, 'TS-1033'],
    ['fewer texts than numbers', { ...two, text: ['Hello'] }, 'TS-1033'],
    ['more texts than numbers', { text: ['Hello', 'World'] }, 'TS-1033'],
    ['no texts for a number', { text: [] }, 'TS-1033'],
    ['an empty text', { ...two, text: ['Hello', ''] }, 'TS-1033'],
    ['a whitespace-only text', { ...two, text: [' \t', 'Hello'] }, 'TS-1033'],
    ['a text that is a number', { ...two, text: ['Hello', 42] }, 'TS-1033'],
    ['a text that is null', { ...two, text: ['Hello', null] }, 'TS-1033'],
    ['a text that is an array', { ...two, text: ['Hello', ['World']] }, 'TS-1033'],
    ['a text of 2,001 characters', { ...two, text: ['Hello', 'a'.repeat(2001)] }, 'TS-1026'],
    ['sms_lang 3', { sms_lang: 3 }, 'TS-1033'],
    ['scheduled_sms 2', { scheduled_sms: 2 }, 'TS-1033'],
    ['scheduled_sms=1 without date and time', { scheduled_sms: 1 }, 'TS-1070'],
    ['scheduled_sms=1 with scheduled_date 20-03-2026', schedule('20-03-2026', '10:00'), 'TS-1070'],
    ['scheduled_sms=1 with scheduled_time 1000', schedule('2026-03-20', '1000'), 'TS-1071'],
    ['scheduled_sms=1 with scheduled_time 24:00', schedule('2026-03-20', '24:00'), 'TS-1072'],
    ['scheduled_sms=1 in the past', schedule('2026-03-14', '23:59'), 'TS-1072'],
    [
      'scheduled_date and scheduled_time without scheduled_sms',
      { scheduled_date: '2026-03-20', scheduled_time: '10:00' },
      'TS-1033',
    ],
    // Field order is check order: the first failing check answers.
    ['title missing and text a string (title answers first)', { title: undefined, text: 'Hello' }, 'TS-1029'],
    [
      '50,001 numbers and one text (the count answers first)',
      { sentto: turkishNumbers(50_001), text: ['Hi'] },
      'TS-1060',
    ],
    [
      'lengths differing and a bad schedule (the texts answer first)',
      { ...two, text: ['Hello'], ...schedule('x', '10:00') },
      'TS-1033',
    ],
    [
      'a bad schedule and an unknown sender ID (request checks before the store)',
      { ...schedule('2026-03-20', '9:00'), title: 'OTHER' },
      'TS-1071',
    ],
  ];
  for (const [name, fields, code] of fieldCases) {
    it(`answers ${name} with ${code} and HTTP 400`, async () => {
      await refused(await groupSendMixed(h, p.apiKey, fields), code, 400);
    });
  }

  it('answers an unknown or pending sender ID with TS-1028, HTTP 403', async () => {
    await refused(await groupSendMixed(h, p.apiKey, { title: 'OTHER' }), 'TS-1028', 403);
    await refused(await groupSendMixed(h, p.apiKey, { title: 'PEND' }), 'TS-1028', 403);
  });

  it('queued nothing for any refused request: the dispatcher finds no work', async () => {
    const delivery = await simulatedDelivery(h.runtime);
    try {
      assert.equal(await drain(delivery), 0);
    } finally {
      await delivery.stop();
    }
  });
});

describe('/group/sendMixed: the bulk send result and counting', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  it('answers TS-1024 with the bulk send result; total_sms_cost is the sum of each text by the Türkiye table', async () => {
    const p = await h.provision();
    // 160, 161 and 400 English characters: 1 + 2 + 3 SMS.
    const answer = await groupSendMixed(h, p.apiKey, {
      sentto: ['905321111111', '905321111112', '905321111113'],
      text: ['a'.repeat(160), 'a'.repeat(161), 'a'.repeat(400)],
      sms_lang: 0,
    });
    const result = assertBulkAccepted(answer);
    assert.deepEqual({ ...result, raporId: 0 }, { raporId: 0, totalNumbers: 3, totalSmsCost: 6, scheduled: false });
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 994, international: 100 });
    assert.equal(summaryOf(await reportBasic(h, p.apiKey, result.raporId)).total_numbers, 3);
  });

  /** [sentto, texts, sms_lang, total_sms_cost, main charged, international charged] */
  const counts: Array<[string[], string[], number | undefined, number, number, number]> = [
    [['905321234567'], ['ş'.repeat(155)], 1, 1, 1, 0],
    [['905321234567'], ['ş'.repeat(156)], 1, 2, 2, 0],
    [['905321234567', '905327654321'], ['ع'.repeat(65), 'ع'.repeat(66)], undefined, 3, 3, 0],
    // The Türkiye table for international numbers too (their own table would give 2).
    [['447700900123'], ['a'.repeat(71)], 0, 1, 0, 1],
    [['447700900123', '905321234567'], ['a'.repeat(2000), 'a'.repeat(306)], 0, 11, 3, 8],
    // TS-L counts as one line break, per text.
    [['905321234567', '905327654321'], [`${'a'.repeat(157)}TS-Lbb`, `${'a'.repeat(158)}TS-Lbb`], 0, 3, 3, 0],
  ];
  for (const [sentto, texts, lang, expected, main, international] of counts) {
    it(`counts texts of ${texts.map((t) => t.length).join(' and ')} characters, sms_lang ${String(lang)}, as ${expected} SMS and charges exactly that`, async () => {
      const p = await h.provision();
      const result = assertBulkAccepted(await groupSendMixed(h, p.apiKey, { sentto, text: texts, sms_lang: lang }));
      assert.equal(result.totalSmsCost, expected);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000 - main, international: 100 - international });
    });
  }

  it('accepts numbers as another name for sentto, and numbers sent as JSON numbers', async () => {
    const p = await h.provision();
    const alias = assertBulkAccepted(
      await h.post('/group/sendMixed', {
        api_key: p.apiKey,
        title: 'ACME',
        numbers: [905321234567, '05327654321'],
        text: ['a', 'b'],
      }),
    );
    assert.equal(alias.totalNumbers, 2);
    // The alias is measured against the texts like sentto.
    assertRefused(
      await h.post('/group/sendMixed', {
        api_key: p.apiKey,
        title: 'ACME',
        numbers: ['905321234567'],
        text: ['a', 'b'],
      }),
      'TS-1033',
      400,
    );
  });

  it('queues an identical number-and-text pair once and different texts to one number separately, each to its own text', async () => {
    // A store of its own, so the carrier sees this send's messages alone.
    const h = await createHarness();
    const p = await h.provision();
    const live = new RecordingCarrier('live');
    const delivery = await simulatedDelivery(h.runtime, { live });
    try {
      const sentto = [
        '05321234567',
        '905321234567',
        '+90 532 123 45 67',
        '905327654321',
        '5321234567',
        '0532 123 45 67',
        '905321234567',
      ];
      const text = ['A', 'A', 'Bb', 'A', 'Bb', 'aTS-Lb', 'a\nb'];
      const result = assertBulkAccepted(await groupSendMixed(h, p.apiKey, { sentto, text }));
      // (…4567, A), (…4567, Bb), (…4321, A), (…4567, a\nb): TS-L is compared as the line break it becomes.
      assert.equal(result.totalNumbers, 4);
      assert.equal(result.totalSmsCost, 4);
      assert.equal((await balancesOf(h, p.apiKey)).main, 996);
      assert.equal(await drain(delivery), 4);
      assert.deepEqual(
        live.submitted.map((m) => [m.to, m.text]),
        [
          ['905321234567', 'A'],
          ['905321234567', 'Bb'],
          ['905327654321', 'A'],
          ['905321234567', 'a\nb'],
        ],
      );
      const { data, pagination } = detailedOf(await reportDetailed(h, p.apiKey, result.raporId));
      assert.equal(pagination.total_records, 4);
      assert.deepEqual(
        data.map((r) => r.phone_number),
        ['905321234567', '905321234567', '905327654321', '905321234567'],
      );
    } finally {
      await delivery.stop();
      await h.close();
    }
  });

  it('takes a body over the default 1 MiB limit: 1,000 texts of 2,000 characters', async () => {
    const p = await h.provision({ account: { balanceMain: 10_000 } });
    const sentto = turkishNumbers(1_000, 300);
    const text = sentto.map((_, i) => `${i} ${'ç'.repeat(1990)}`);
    const result = assertBulkAccepted(await groupSendMixed(h, p.apiKey, { sentto, text, sms_lang: 1 }));
    assert.equal(result.totalNumbers, 1_000);
    assert.equal(result.totalSmsCost, 8_000);
  });

  it('keeps one text sent to different numbers for each of them', async () => {
    const p = await h.provision();
    const result = assertBulkAccepted(
      await groupSendMixed(h, p.apiKey, {
        sentto: ['905321111111', '905321111112', '905321111113'],
        text: ['Same', 'Same', 'Same'],
      }),
    );
    assert.equal(result.totalNumbers, 3);
    assert.equal(result.totalSmsCost, 3);
  });
});

for (const dialect of testDialects()) {
  describeOn(dialect, `/group/sendMixed on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it('refuses a send the balance does not cover with TS-1027 and HTTP 403, queuing and charging nothing', async () => {
      const p = await h.provision({ account: { balanceMain: 5 } });
      const delivery = await simulatedDelivery(h.runtime);
      try {
        // 1 + 5 SMS for a balance of 5.
        const answer = await groupSendMixed(h, p.apiKey, {
          sentto: ['905321234567', '905327654321'],
          text: ['a', 'a'.repeat(700)],
          sms_lang: 0,
        });
        assertRefused(answer, 'TS-1027', 403);
        assert.equal(answer.body.rapor_id, undefined);
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 5, international: 100 });
        assert.equal(await drain(delivery), 0, 'nothing was queued');
        assert.equal(
          assertBulkAccepted(
            await groupSendMixed(h, p.apiKey, {
              sentto: ['905321234567', '905327654321'],
              text: ['a', 'a'.repeat(600)],
              sms_lang: 0,
            }),
          ).totalSmsCost,
          5,
        );
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 0, international: 100 });
        assert.equal(await drain(delivery), 2);
      } finally {
        await delivery.stop();
      }
    });

    it('sends each text to its number at the scheduled time and not before, counting invalid numbers as failed (an entry that is no number uncharged)', async () => {
      const p = await h.provision();
      const live = new RecordingCarrier('live');
      const delivery = await simulatedDelivery(h.runtime, { live });
      try {
        const result = assertBulkAccepted(
          await groupSendMixed(h, p.apiKey, {
            sentto: ['905321231234', '905421235678', '123', 'hello-world'],
            text: ['Bir', 'İki', 'Üç', 'Dört'],
            sms_lang: 1,
            scheduled_sms: 1,
            scheduled_date: '2026-03-15',
            scheduled_time: '12:00:03',
          }),
        );
        assert.equal(result.scheduled, true);
        assert.equal(result.totalNumbers, 4);
        assert.equal(result.totalSmsCost, 3, 'hello-world is not charged');
        assert.deepEqual(await balancesOf(h, p.apiKey), { main: 998, international: 99 });
        h.clock.advance(2_999);
        assert.equal(await drain(delivery), 0);
        assert.deepEqual(detailedOf(await reportDetailed(h, p.apiKey, result.raporId)).data, []);
        h.clock.advance(1);
        assert.equal(await drain(delivery), 2, 'the invalid numbers are never submitted');
        assert.deepEqual(
          live.submitted.map((m) => [m.to, m.text, m.lang]),
          [
            ['905321231234', 'Bir', 1],
            ['905421235678', 'İki', 1],
          ],
        );
        const summary = summaryOf(await reportBasic(h, p.apiKey, result.raporId));
        assert.deepEqual(
          [summary.success_count, summary.failed_count, summary.pending_count, summary.details.invalid_numbers],
          [0, 2, 2, 2],
        );
      } finally {
        await delivery.stop();
      }
    });
  });

  describeOn(dialect, `/group/sendMixed of 50,000 pairs on ${dialect.name}`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(await dialect.location());
    });
    after(async () => {
      await h.close();
      await dialect.cleanup();
    });

    it('takes 50,000 pairs and writes them all out, each with its own text', async () => {
      const p = await h.provision({ account: { balanceMain: 200_000 } });
      const sentto = turkishNumbers(50_000);
      // Every tenth text is long enough for 2 SMS (sms_lang 0).
      const text = sentto.map((_, i) => (i % 10 === 0 ? `${'x'.repeat(161)}${i}` : `Message ${i}`));
      const result = assertBulkAccepted(await groupSendMixed(h, p.apiKey, { sentto, text, sms_lang: 0 }));
      assert.equal(result.totalNumbers, 50_000);
      assert.equal(result.totalSmsCost, 55_000);
      assert.equal((await balancesOf(h, p.apiKey)).main, 145_000);
      const delivery = await simulatedDelivery(h.runtime);
      try {
        let records = 0;
        for (let round = 0; round < 50 && records < 50_000; round++) {
          await delivery.runOnce();
          records = detailedOf(await reportDetailed(h, p.apiKey, result.raporId)).pagination.total_records;
        }
        assert.equal(records, 50_000);
        const summary = await waitForSummary(
          h,
          p.apiKey,
          result.raporId,
          delivery,
          (s) => s.success_count + s.failed_count > 0,
        );
        assert.equal(summary.success_count + summary.failed_count + summary.pending_count, 50_000);
      } finally {
        await delivery.stop();
      }
    });
  });
}
