/**
 * POST /sms/send through HTTP: the rows of its error table that are its own, with the
 * spec's literal codes and statuses (the key, state, address, permission and body rows,
 * the order of its two permissions among them, are tested from the endpoint table in
 * test/http/endpoint-table), the send result's fields, counting and charging. Checks that touch the
 * store in an interesting way (atomic charging, the per-minute limit, 50,000 recipients)
 * run on every configured dialect.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, harnessFor } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { messageCount, storedMessage } from '../helpers/delivery.js';
import {
  assertAccepted,
  assertRefused,
  balancesOf,
  intField,
  sendSms,
  turkishNumbers,
  validSend,
} from '../helpers/sms.js';

describe('/sms/send: refused requests', () => {
  let h: Harness;
  let p: Provisioned;
  before(async () => {
    h = await createHarness();
    p = await h.provision({
      senderIds: [{ title: 'ACME' }, { title: 'PEND', status: 'pending' }, { title: 'REJ', status: 'rejected' }],
    });
  });
  after(async () => h.close());

  /** Refused, and nothing was recorded or charged for it. */
  async function refused(answer: Answer, code: string, status: number): Promise<void> {
    assertRefused(answer, code, status);
    assert.equal(answer.headers['retry-after'], undefined, 'only limit failures carry Retry-After');
    assert.equal(await messageCount(h.runtime, p.accountId), 0, 'no message recorded');
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 100 }, 'nothing charged');
  }

  const fieldCases: Array<[string, Record<string, unknown>, string]> = [
    ['sms_lang 3', { sms_lang: 3 }, 'TS-1033'],
    ['sms_lang -1', { sms_lang: -1 }, 'TS-1033'],
    ['sms_lang 1.5', { sms_lang: 1.5 }, 'TS-1033'],
    ['sms_lang "x"', { sms_lang: 'x' }, 'TS-1033'],
    ['content_type "x"', { content_type: 'x' }, 'TS-1033'],
    ['content_type 3', { content_type: 3 }, 'TS-1033'],
    ['sentto missing', { sentto: undefined }, 'TS-1025'],
    ['sentto empty', { sentto: '' }, 'TS-1025'],
    ['sentto of 6 characters', { sentto: '905321' }, 'TS-1025'],
    ['sentto of separators only', { sentto: ',,,;;;;' }, 'TS-1025'],
    ['sentto of characters normalisation removes', { sentto: '+-() +-()' }, 'TS-1025'],
    ['sentto an array', { sentto: ['905321234567'] }, 'TS-1025'],
    ['sentto "hello-world" (not a phone number)', { sentto: 'hello-world' }, 'TS-1025'],
    [
      'one entry that is not a number among good ones',
      { sentto: '905321234567,0532 abc 45 67;905327654321' },
      'TS-1025',
    ],
    ['an entry of 16 digits (E.164 allows 15)', { sentto: '1234567890123456' }, 'TS-1025'],
    ['mobile (for sentto) that is not a number', { sentto: undefined, mobile: 'hello-world' }, 'TS-1025'],
    [
      'a scheduled send with an entry that is not a number',
      { sentto: '905321234567,hello', scheduled_date: '2026-03-20', scheduled_time: '10:00' },
      'TS-1025',
    ],
    ['title missing', { title: undefined }, 'TS-1051'],
    ['title empty', { title: '' }, 'TS-1051'],
    ['title of 12 characters', { title: 'ABCDEFGHIJKL' }, 'TS-1029'],
    ['title of six Turkish letters (12 by the Turkish rule)', { title: 'ŞŞŞŞŞŞ' }, 'TS-1029'],
    ['text missing', { text: undefined }, 'TS-1026'],
    ['text empty', { text: '' }, 'TS-1026'],
    ['text whitespace only', { text: '  \n\t ' }, 'TS-1026'],
    ['text of 2001 characters', { text: 'a'.repeat(2001) }, 'TS-1026'],
    ['501 distinct numbers', { sentto: turkishNumbers(501).join(',') }, 'TS-1060'],
    ['an unknown sender ID', { title: 'OTHER' }, 'TS-1028'],
    ['a pending sender ID', { title: 'PEND' }, 'TS-1028'],
    ['a rejected sender ID', { title: 'REJ' }, 'TS-1028'],
    ['a sender ID in another case (acme for ACME)', { title: 'acme' }, 'TS-1028'],
    ['scheduled_date 2026/03/20', { scheduled_date: '2026/03/20', scheduled_time: '10:00' }, 'TS-1070'],
    ['scheduled_date without scheduled_time', { scheduled_date: '2026-03-20' }, 'TS-1070'],
    ['scheduled_date with an empty scheduled_time', { scheduled_date: '2026-03-20', scheduled_time: '' }, 'TS-1070'],
    ['scheduled_time 9:5', { scheduled_date: '2026-03-20', scheduled_time: '9:5' }, 'TS-1071'],
    ['scheduled_time 10:00:00:00', { scheduled_date: '2026-03-20', scheduled_time: '10:00:00:00' }, 'TS-1071'],
    ['scheduled_time 25:99', { scheduled_date: '2026-03-20', scheduled_time: '25:99' }, 'TS-1072'],
    [
      'a scheduled time one second in the past',
      { scheduled_date: '2026-03-15', scheduled_time: '11:59:59' },
      'TS-1072',
    ],
    ['a scheduled time equal to now', { scheduled_date: '2026-03-15', scheduled_time: '12:00:00' }, 'TS-1072'],
    ['scheduled_date 2026-02-30', { scheduled_date: '2026-02-30', scheduled_time: '10:00' }, 'TS-1072'],
    // Field order is check order: the first failing check answers.
    ['every text field empty (sentto answers first)', { sentto: '', title: '', text: '' }, 'TS-1025'],
    ['title and text empty (title answers first)', { title: '', text: '' }, 'TS-1051'],
    ['text empty and sms_lang 9 (text answers first)', { text: '', sms_lang: 9 }, 'TS-1026'],
    [
      'sms_lang 9 and a bad schedule (fields before the schedule)',
      { sms_lang: 9, scheduled_date: 'x', scheduled_time: '10:00' },
      'TS-1033',
    ],
    [
      'a bad schedule and 501 numbers (schedule before the count)',
      { sentto: turkishNumbers(501).join(','), scheduled_date: 'x', scheduled_time: '10:00' },
      'TS-1070',
    ],
    [
      '501 numbers and an unknown sender (count before the sender)',
      { sentto: turkishNumbers(501).join(','), title: 'OTHER' },
      'TS-1060',
    ],
  ];
  for (const [name, fields, code] of fieldCases) {
    it(`answers ${name} with ${code} and HTTP 400`, async () => {
      await refused(await sendSms(h, p.apiKey, fields), code, 400);
    });
  }

  it('names the entry that is not a number, cut short when long', async () => {
    const answer = await sendSms(h, p.apiKey, { sentto: '905321234567, hello-world' });
    await refused(answer, 'TS-1025', 400);
    assert.equal(answer.body.result_message, 'sentto entry "hello-world" is not a phone number');
    const long = await sendSms(h, p.apiKey, { sentto: `905321234567,${'x'.repeat(5000)}` });
    await refused(long, 'TS-1025', 400);
    assert.equal(long.body.result_message, `sentto entry "${'x'.repeat(32)}…" is not a phone number`);
  });
});

describe('/sms/send: the send result', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  it('answers TS-1024 with every field of the send result, charges the SMS count and records the message', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, { sms_lang: 1, content_type: 2 });
    assertAccepted(answer);
    const smsId = intField(answer, 'sms_id');
    assert.equal(answer.body.number_of_sms, 1);
    assert.equal(answer.body.total_recipients, 1);
    assert.equal(answer.body.success_count, 1);
    assert.equal(answer.body.sms_lang, 'Turkish');
    assert.equal(answer.body.content_type, 'Advertising');
    assert.equal(answer.body.country, 'Turkey-TR');
    assert.equal(typeof answer.body.result_message, 'string');
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 999, international: 100 });
    const message = await storedMessage(h.runtime, p.accountId, smsId);
    assert.equal(message.recipient, '905321234567');
    assert.equal(message.sender, 'ACME');
    assert.equal(message.smsCount, 1);
  });

  it('treats spaced, +90 and 905 forms of one number as one recipient; sms_id is the last recipient', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, {
      sentto: '0532 123 45 67,+90 532 123 4567;905321234567\n(0532) 765-4321',
    });
    assertAccepted(answer);
    assert.equal(answer.body.total_recipients, 2);
    assert.equal(answer.body.success_count, 2);
    assert.equal(answer.body.number_of_sms, 2);
    assert.equal(await messageCount(h.runtime, p.accountId), 2);
    const last = await storedMessage(h.runtime, p.accountId, intField(answer, 'sms_id'));
    assert.equal(last.recipient, '905327654321');
    assert.equal((await balancesOf(h, p.apiKey)).main, 998);
  });

  it('accepts and charges wrong numbers (digits, at most 15 of them): numbers are not validated one by one', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, { sentto: '12345,123456789012345' });
    assertAccepted(answer);
    assert.equal(answer.body.total_recipients, 2);
    assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000, international: 98 });
  });

  it('splits sentto on commas, semicolons and line breaks (LF, CRLF, CR)', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, {
      sentto: '905321111111,905321111112;905321111113\n905321111114\r\n905321111115\r905321111116',
    });
    assertAccepted(answer);
    assert.equal(answer.body.total_recipients, 6);
    assert.equal(await messageCount(h.runtime, p.accountId), 6);
  });

  it('labels sms_lang 0, 1, 2 and the default, and content_type 0, 1, 2 and the default', async () => {
    const p = await h.provision();
    const langs: Array<[number | undefined, string]> = [
      [0, 'English'],
      [1, 'Turkish'],
      [2, 'Arabic'],
      [undefined, 'Arabic'],
    ];
    for (const [lang, label] of langs) {
      const answer = await sendSms(h, p.apiKey, { sms_lang: lang });
      assertAccepted(answer);
      assert.equal(answer.body.sms_lang, label, `sms_lang ${String(lang)}`);
    }
    const types: Array<[number | undefined, string]> = [
      [0, 'Transactional'],
      [1, 'High Quality'],
      [2, 'Advertising'],
      [undefined, 'Transactional'],
    ];
    for (const [type, label] of types) {
      const answer = await sendSms(h, p.apiKey, { content_type: type });
      assertAccepted(answer);
      assert.equal(answer.body.content_type, label, `content_type ${String(type)}`);
      // content_type changes neither route nor price.
      assert.equal(answer.body.number_of_sms, 1);
    }
  });

  /** [sentto, text, sms_lang, number_of_sms, country, main charged, international charged] */
  const counts: Array<[string, string, number | undefined, number, string, number, number]> = [
    ['905321234567', 'a'.repeat(160), 0, 1, 'Turkey-TR', 1, 0],
    ['905321234567', 'a'.repeat(161), 0, 2, 'Turkey-TR', 2, 0],
    ['905321234567', 'a'.repeat(1070), 0, 7, 'Turkey-TR', 7, 0],
    ['905321234567', 'a'.repeat(1071), 0, 8, 'Turkey-TR', 8, 0],
    ['905321234567', 'ş'.repeat(155), 1, 1, 'Turkey-TR', 1, 0],
    ['905321234567', 'ş'.repeat(156), 1, 2, 'Turkey-TR', 2, 0],
    ['905321234567', 'ع'.repeat(65), 2, 1, 'Turkey-TR', 1, 0],
    ['905321234567', 'ع'.repeat(66), undefined, 2, 'Turkey-TR', 2, 0],
    ['447700900123', 'a'.repeat(70), 0, 1, 'GlobalSMS-GL', 0, 1],
    ['447700900123', 'a'.repeat(71), 0, 2, 'GlobalSMS-GL', 0, 2],
    ['00447700900123', 'a'.repeat(71), 1, 2, 'GlobalSMS-GL', 0, 2],
    // TS-L counts as the one line break it becomes: 163 characters sent, 160 counted.
    ['905321234567', `${'a'.repeat(157)}TS-Lbb`, 0, 1, 'Turkey-TR', 1, 0],
    ['905321234567', `${'a'.repeat(158)}TS-Lbb`, 0, 2, 'Turkey-TR', 2, 0],
    // Each recipient by its own table; country is the first recipient's.
    ['447700900123,905321234567', 'a'.repeat(71), 0, 3, 'GlobalSMS-GL', 1, 2],
    ['905321234567,447700900123', 'a'.repeat(71), 0, 3, 'Turkey-TR', 1, 2],
  ];
  for (const [sentto, text, lang, expected, country, main, international] of counts) {
    it(`counts ${text.length} characters, sms_lang ${String(lang)}, to ${sentto} as ${expected} SMS and charges exactly that`, async () => {
      const p = await h.provision();
      const answer = await sendSms(h, p.apiKey, { sentto, text, sms_lang: lang });
      assertAccepted(answer);
      assert.equal(answer.body.number_of_sms, expected);
      assert.equal(answer.body.country, country);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1000 - main, international: 100 - international });
    });
  }

  it('accepts a text of exactly 2,000 characters', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, { text: 'a'.repeat(2000), sms_lang: 0 });
    assertAccepted(answer);
    assert.equal(answer.body.number_of_sms, 8);
  });

  it('accepts a title of 11 by the Turkish rule (five Turkish letters and one more)', async () => {
    const p = await h.provision({ senderIds: [{ title: 'ŞŞŞŞŞA' }] });
    assertAccepted(await sendSms(h, p.apiKey, { title: 'ŞŞŞŞŞA' }));
  });

  it('accepts mobile as another name for sentto, and prefers sentto when both are sent', async () => {
    const p = await h.provision();
    const { sentto: _sentto, ...rest } = validSend;
    const alias = await h.post('/sms/send', { api_key: p.apiKey, ...rest, mobile: '05321234567' });
    assertAccepted(alias);
    assert.equal((await storedMessage(h.runtime, p.accountId, intField(alias, 'sms_id'))).recipient, '905321234567');
    const both = await sendSms(h, p.apiKey, { sentto: '905327654321', mobile: '905321234567' });
    assertAccepted(both);
    assert.equal((await storedMessage(h.runtime, p.accountId, intField(both, 'sms_id'))).recipient, '905327654321');
  });

  it('accepts sentto sent as a JSON number', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, { sentto: 905321234567 });
    assertAccepted(answer);
    assert.equal(answer.body.total_recipients, 1);
  });

  it('accepts a form-encoded body, with integers sent as text', async () => {
    const p = await h.provision();
    const form = new URLSearchParams({
      api_key: p.apiKey,
      sentto: '905321234567,905327654321',
      title: 'ACME',
      text: 'Merhaba',
      sms_lang: '1',
      content_type: '1',
    });
    const answer = await h.post('/sms/send', undefined, {
      raw: form.toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    assertAccepted(answer);
    assert.equal(answer.body.sms_lang, 'Turkish');
    assert.equal(answer.body.content_type, 'High Quality');
    assert.equal(answer.body.total_recipients, 2);
    assert.equal((await balancesOf(h, p.apiKey)).main, 998);
  });

  it('sends an immediate send when scheduled_date is empty', async () => {
    const p = await h.provision();
    const answer = await sendSms(h, p.apiKey, { scheduled_date: '', scheduled_time: '' });
    assertAccepted(answer);
    const message = await storedMessage(h.runtime, p.accountId, intField(answer, 'sms_id'));
    assert.equal(message.scheduled, false);
  });

  it('takes 500 distinct numbers, and 600 entries that de-duplicate to 500', async () => {
    const first = await h.provision();
    const distinct = await sendSms(h, first.apiKey, { sentto: turkishNumbers(500).join(',') });
    assertAccepted(distinct);
    assert.equal(distinct.body.total_recipients, 500);
    assert.equal(await messageCount(h.runtime, first.accountId), 500);

    const second = await h.provision();
    const numbers = turkishNumbers(500);
    const withDuplicates = [...numbers, ...numbers.slice(0, 100).map((n) => `+${n.slice(0, 2)} ${n.slice(2)}`)];
    assert.equal(withDuplicates.length, 600);
    const answer = await sendSms(h, second.apiKey, { sentto: withDuplicates.join(';') });
    assertAccepted(answer);
    assert.equal(answer.body.total_recipients, 500);
    assert.equal(answer.body.number_of_sms, 500);
    assert.equal((await balancesOf(h, second.apiKey)).main, 500);
  });
});

for (const dialect of testDialects()) {
  describeOn(dialect, `/sms/send on ${dialect.name}`, () => {
    const h = harnessFor(dialect);

    it('refuses a send the balance does not cover with TS-1027 and HTTP 403, sending and charging nothing', async () => {
      const p = await h.provision({ account: { balanceMain: 1 } });
      const answer = await sendSms(h, p.apiKey, { sentto: '905321234567,905327654321' });
      assertRefused(answer, 'TS-1027', 403);
      assert.equal(answer.body.sms_id, undefined);
      assert.equal(await messageCount(h.runtime, p.accountId), 0);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 1, international: 100 });
      // A balance that covers the count exactly is enough.
      const one = await sendSms(h, p.apiKey);
      assertAccepted(one);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 0, international: 100 });
      assertRefused(await sendSms(h, p.apiKey), 'TS-1027', 403);
    });

    it('charges international numbers to the international balance', async () => {
      const p = await h.provision({ account: { balanceMain: 10, balanceInternational: 10 } });
      const answer = await sendSms(h, p.apiKey, {
        sentto: '447700900123,12025550123',
        text: 'a'.repeat(71),
        sms_lang: 0,
      });
      assertAccepted(answer);
      assert.equal(answer.body.number_of_sms, 4);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 10, international: 6 });
    });

    it('rolls back the main charge when the international balance falls short', async () => {
      const p = await h.provision({ account: { balanceMain: 10, balanceInternational: 1 } });
      const answer = await sendSms(h, p.apiKey, {
        sentto: '905321234567,447700900123',
        text: 'a'.repeat(71),
        sms_lang: 0,
      });
      assertRefused(answer, 'TS-1027', 403);
      assert.equal(await messageCount(h.runtime, p.accountId), 0);
      assert.deepEqual(await balancesOf(h, p.apiKey), { main: 10, international: 1 });
    });

    it('counts recipients, not requests, against the per-minute limit, and answers TS-1060 with HTTP 429 and Retry-After', async () => {
      const p = await h.provision({ account: { perMinuteLimit: 3 } });
      assertAccepted(await sendSms(h, p.apiKey, { sentto: '905321111111,905321111112' }));
      const limited = await sendSms(h, p.apiKey, { sentto: '905321111113,905321111114' });
      assertRefused(limited, 'TS-1060', 429);
      assert.ok(Number(limited.headers['retry-after']) >= 1, 'Retry-After is a number of seconds');
      assert.equal(await messageCount(h.runtime, p.accountId), 2, 'the refused recipients were not recorded');
      assert.equal((await balancesOf(h, p.apiKey)).main, 998, 'the refused send was not charged');
      // One more recipient still fits: three in the minute.
      assertAccepted(await sendSms(h, p.apiKey, { sentto: '905321111115' }));
      assertRefused(await sendSms(h, p.apiKey, { sentto: '905321111116' }), 'TS-1060', 429);
      h.clock.advance(61_000);
      assertAccepted(await sendSms(h, p.apiKey, { sentto: '905321111113,905321111114' }));
      // Another account is not held back by this one's minute.
      const other = await h.provision({ account: { perMinuteLimit: 3 } });
      assertAccepted(await sendSms(h, other.apiKey, { sentto: '905321111111,905321111112,905321111113' }));
    });

    it('holds the per-minute limit for requests sent at the same time', async () => {
      const p = await h.provision({ account: { perMinuteLimit: 3 } });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => sendSms(h, p.apiKey, { sentto: `90532123${4000 + i}` })),
      );
      const codes = answers.map((a) => a.body.result_code);
      assert.equal(codes.filter((c) => c === 'TS-1024').length, 3, codes.join(' '));
      assert.equal(codes.filter((c) => c === 'TS-1060').length, 7, codes.join(' '));
      for (const refusedAnswer of answers.filter((a) => a.body.result_code === 'TS-1060'))
        assertRefused(refusedAnswer, 'TS-1060', 429);
      assert.equal(await messageCount(h.runtime, p.accountId), 3);
      assert.equal((await balancesOf(h, p.apiKey)).main, 997);
    });

    it('counts scheduled recipients against the per-minute limit at request time', async () => {
      const p = await h.provision({ account: { perMinuteLimit: 2 } });
      assertAccepted(
        await sendSms(h, p.apiKey, {
          sentto: '905321111111,905321111112',
          scheduled_date: '2026-03-20',
          scheduled_time: '10:00',
        }),
      );
      assertRefused(await sendSms(h, p.apiKey), 'TS-1060', 429);
    });

    it('takes 50,000 numbers in a scheduled send and refuses 50,001 with TS-1060 and HTTP 400', async () => {
      const p = await h.provision({ account: { balanceMain: 200_000 } });
      const schedule = { scheduled_date: '2026-03-16', scheduled_time: '10:00' };
      const over = await sendSms(h, p.apiKey, { sentto: turkishNumbers(50_001).join(','), ...schedule });
      assertRefused(over, 'TS-1060', 400);
      assert.equal(await messageCount(h.runtime, p.accountId), 0);
      const answer = await sendSms(h, p.apiKey, { sentto: turkishNumbers(50_000).join(','), ...schedule });
      assertAccepted(answer);
      assert.equal(answer.body.total_recipients, 50_000);
      assert.equal(answer.body.number_of_sms, 50_000);
      assert.equal(await messageCount(h.runtime, p.accountId), 50_000);
      assert.equal((await balancesOf(h, p.apiKey)).main, 150_000);
      // 501 numbers are still too many for an immediate send.
      assertRefused(await sendSms(h, p.apiKey, { sentto: turkishNumbers(501).join(',') }), 'TS-1060', 400);
    });
  });
}
