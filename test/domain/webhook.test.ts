import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterAttempt,
  buildAttempt,
  buildPayload,
  headersFor,
  nextAttemptDelay,
  parseRetrySchedule,
  retryScale,
  retrySchedule,
  retryScheduleFromText,
  retryScheduleToText,
  sign,
  DEFAULT_WEBHOOK_ATTEMPTS,
  parseWebhookEventList,
  takesEvent,
  webhookEventsFromText,
  webhookEventsToText,
} from '../../src/domain/webhook.js';

const t0 = Date.UTC(2025, 2, 1, 9, 30, 0);

describe('sign', () => {
  it('matches RFC 4231 test case 2', () => {
    assert.equal(
      sign('what do ya want for nothing?', 'Jefe'),
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('matches a payload vector computed with openssl dgst -sha256 -hmac', () => {
    const body = buildPayload({ eventId: 'evt_01', eventType: 'sms.delivered', smsId: 4711 }, t0);
    assert.equal(
      body,
      '{"event_type":"sms.delivered","event_id":"evt_01","timestamp":"2025-03-01T09:30:00.000Z","data":{"sms_id":4711,"status":"delivered"}}',
    );
    assert.equal(
      sign(body, 'whsec_test_secret'),
      'sha256=9f4b22e6b6a97e349db587a28d6669f50a00cda7f13917dcaba1470dc74a3554',
    );
  });

  it('signs the UTF-8 bytes of non-ASCII bodies and secrets (openssl vector)', () => {
    assert.equal(
      sign('{"text":"Şişli’de görüşürüz"}', 'anahtar-ğ'),
      'sha256=5e214368fbafa4fa7415c3729fb5b9497dac119a07fa2639fef3d5ce01776dcc',
    );
  });
});

describe('buildPayload', () => {
  const parse = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

  it('puts the attempt time in timestamp and keeps event_id across attempts', () => {
    const event = { eventId: 'evt_7', eventType: 'sms.sent', smsId: 12 } as const;
    const first = parse(buildPayload(event, t0));
    const retry = parse(buildPayload(event, t0 + 10_000));
    assert.equal(first.timestamp, '2025-03-01T09:30:00.000Z');
    assert.equal(retry.timestamp, '2025-03-01T09:30:10.000Z');
    assert.equal(first.event_id, 'evt_7');
    assert.equal(retry.event_id, 'evt_7');
    assert.deepEqual(first.data, { sms_id: 12, status: 'sent' });
  });

  it('derives data.status from sms.* event types, even against a conflicting status', () => {
    for (const [type, status] of [
      ['sms.sent', 'sent'],
      ['sms.delivered', 'delivered'],
      ['sms.failed', 'failed'],
    ] as const) {
      const data = parse(buildPayload({ eventId: 'e', eventType: type, smsId: 1, status: 'sent' }, t0)).data;
      assert.deepEqual(data, { sms_id: 1, status });
    }
  });

  it('omits status for key.test, even when extra or status carry one, and sends sms_id 0', () => {
    const body = buildPayload({ eventId: 'e', eventType: 'key.test', status: 'sent', extra: { status: 'failed' } }, t0);
    assert.deepEqual(parse(body).data, { sms_id: 0 });
  });

  it('uses the given status for otp.verified and merges extra without letting it replace sms_id', () => {
    const body = buildPayload(
      {
        eventId: 'e',
        eventType: 'otp.verified',
        smsId: 5,
        status: 'delivered',
        extra: { sms_id: 99, mobile: '905321234567' },
      },
      t0,
    );
    assert.deepEqual(parse(body).data, { mobile: '905321234567', sms_id: 5, status: 'delivered' });
  });

  it('refuses a non-integer sms_id as a programming error', () => {
    assert.throws(() => buildPayload({ eventId: 'e', eventType: 'sms.sent', smsId: 1.5 }, t0), RangeError);
  });
});

describe('headersFor', () => {
  it('signs when a secret is set and repeats the body timestamp', () => {
    const { body, headers } = buildAttempt({ eventId: 'e', eventType: 'sms.failed', smsId: 3 }, t0, 's3cret');
    assert.deepEqual(headers, {
      'Content-Type': 'application/json',
      'User-Agent': 'haberci-webhooks/1',
      'X-Service-Timestamp': '2025-03-01T09:30:00.000Z',
      'X-Service-Signature': sign(body, 's3cret'),
    });
    assert.equal((JSON.parse(body) as { timestamp: string }).timestamp, headers['X-Service-Timestamp']);
  });

  it('has no signature header without a secret, or with an empty one', () => {
    for (const secret of [null, '']) {
      const headers = headersFor('{}', '2025-03-01T09:30:00.000Z', secret);
      assert.equal('X-Service-Signature' in headers, false);
      assert.equal(headers['Content-Type'], 'application/json');
    }
  });
});

const minute = 60_000;
const hour = 60 * minute;

describe('nextAttemptDelay', () => {
  // After failed attempt n: [n, lowest (random 0), middle (random 0.5), highest (random just under 1)].
  const defaults: [number, number, number, number][] = [
    [1, 48_000, minute, 71_999],
    [2, 8 * minute, 10 * minute, 12 * minute - 1],
    [3, 48 * minute, hour, 72 * minute - 1],
    [4, 4.8 * hour, 6 * hour, 7.2 * hour - 1],
    [5, 4.8 * hour, 6 * hour, 7.2 * hour - 1],
    [40, 4.8 * hour, 6 * hour, 7.2 * hour - 1],
  ];

  it('follows 1 min, 10 min, 1 h, 6 h by default, each \u00b120 % at random, the last step repeating', () => {
    for (const [n, low, middle, high] of defaults) {
      assert.deepEqual(
        [nextAttemptDelay(n, () => 0), nextAttemptDelay(n, () => 0.5), nextAttemptDelay(n, () => 0.999_999_999)],
        [low, middle, high],
        `after attempt ${n}`,
      );
    }
  });

  it('takes a key\u2019s own schedule, and a scale that shrinks every schedule alike', () => {
    const own = { scheduleMs: [30_000, 5 * minute] };
    assert.deepEqual(
      [1, 2, 3].map((n) => nextAttemptDelay(n, () => 0.5, own)),
      [30_000, 5 * minute, 5 * minute],
    );
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => nextAttemptDelay(n, () => 0.5, { scale: retryScale(20) })),
      [20, 200, 1_200, 7_200],
    );
    assert.deepEqual(
      [1, 2].map((n) => nextAttemptDelay(n, () => 0.5, { ...own, scale: retryScale(600) })),
      [300, 3_000],
    );
    assert.equal(
      nextAttemptDelay(1, () => 0.5, { scheduleMs: [] }),
      minute,
      'an empty schedule is the default',
    );
  });
});

describe('retrySchedule', () => {
  it('lists the retries of the default 5 attempts: the last one about 7 hours after the first', () => {
    assert.equal(DEFAULT_WEBHOOK_ATTEMPTS, 5);
    assert.deepEqual(retrySchedule(), [
      { attempt: 2, minDelayMs: 48_000, maxDelayMs: 72_000 },
      { attempt: 3, minDelayMs: 8 * minute, maxDelayMs: 12 * minute },
      { attempt: 4, minDelayMs: 48 * minute, maxDelayMs: 72 * minute },
      { attempt: 5, minDelayMs: 4.8 * hour, maxDelayMs: 7.2 * hour },
    ]);
  });

  it('has no retries for a single attempt', () => {
    assert.deepEqual(retrySchedule(1), []);
  });
});

describe('parseRetrySchedule', () => {
  const cases: [string, number[] | null][] = [
    ['default', null],
    [' default ', null],
    ['30s,5m,2h', [30_000, 5 * minute, 2 * hour]],
    ['1500ms, 1d', [1_500, 24 * hour]],
    ['7d', [7 * 24 * hour]],
  ];
  it('reads delays with units, or default', () => {
    for (const [raw, scheduleMs] of cases) assert.deepEqual(parseRetrySchedule(raw), { scheduleMs }, raw);
  });

  it('refuses steps under 1 s or over a week, bare numbers, unknown units and empty steps', () => {
    for (const raw of ['999ms', '8d', '60', '5w', '1m,,1h', '', '-1m', '1.5h'])
      assert.ok('error' in parseRetrySchedule(raw), raw);
    assert.ok('error' in parseRetrySchedule(Array.from({ length: 21 }, () => '1m').join(',')), 'more than 20 steps');
  });

  it('stores milliseconds as text and reads them back; unreadable text is the default', () => {
    assert.equal(retryScheduleToText([30_000, 60_000]), '30000,60000');
    assert.equal(retryScheduleToText(null), null);
    assert.deepEqual(retryScheduleFromText('30000,60000'), [30_000, 60_000]);
    assert.equal(retryScheduleFromText(null), null);
    assert.equal(retryScheduleFromText('30000,x'), null);
  });
});

describe('afterAttempt', () => {
  const never = () => 0;

  it('delivers on an acknowledgement, even on the last attempt', () => {
    assert.deepEqual(afterAttempt(true, 1, 5, never), { state: 'delivered' });
    assert.deepEqual(afterAttempt(true, 5, 5, never), { state: 'delivered' });
  });

  it('retries after the backoff of this attempt until the last one, then fails', () => {
    assert.deepEqual(afterAttempt(false, 1, 3, never), { state: 'pending', delayMs: 48_000 });
    assert.deepEqual(afterAttempt(false, 2, 3, never, { scheduleMs: [1_000, 2_000] }), {
      state: 'pending',
      delayMs: 1_600,
    });
    assert.deepEqual(afterAttempt(false, 3, 3, never), { state: 'failed' });
    assert.deepEqual(afterAttempt(false, 1, 1, never), { state: 'failed' });
  });
});

describe('the events a key\u2019s webhook takes', () => {
  it('parses all, or a list in canonical order without repeats or blanks', () => {
    assert.deepEqual(parseWebhookEventList('all'), { events: null });
    assert.deepEqual(parseWebhookEventList(' all '), { events: null });
    assert.deepEqual(parseWebhookEventList('sms.failed, sms.delivered,,sms.failed'), {
      events: ['sms.delivered', 'sms.failed'],
    });
    assert.deepEqual(parseWebhookEventList('sms.received'), { events: ['sms.received'] });
  });

  it('refuses unknown names, key.test and otp.verified (not selectable), all inside a list, and nothing at all', () => {
    assert.deepEqual(parseWebhookEventList('sms.delivered,sms.bounced'), { unknown: 'sms.bounced' });
    assert.deepEqual(parseWebhookEventList('key.test'), { unknown: 'key.test' });
    assert.deepEqual(parseWebhookEventList('otp.verified'), { unknown: 'otp.verified' });
    assert.deepEqual(parseWebhookEventList('all,sms.sent'), { unknown: 'all' });
    assert.deepEqual(parseWebhookEventList(' , '), { unknown: ',' });
  });

  it('takes every event when not limited, key.test always, and otherwise only the chosen ones', () => {
    assert.equal(takesEvent(null, 'sms.sent'), true);
    assert.equal(takesEvent(['sms.delivered'], 'key.test'), true);
    assert.equal(takesEvent(['sms.delivered'], 'sms.delivered'), true);
    assert.equal(takesEvent(['sms.delivered'], 'sms.sent'), false);
    assert.equal(takesEvent(['sms.delivered'], 'sms.received'), false);
  });

  it('stores as comma-separated text, null for all, and drops names it does not know when reading', () => {
    assert.equal(webhookEventsToText(null), null);
    assert.equal(webhookEventsToText(['sms.sent', 'sms.failed']), 'sms.sent,sms.failed');
    assert.equal(webhookEventsFromText(null), null);
    assert.deepEqual(webhookEventsFromText('sms.failed,sms.sent'), ['sms.sent', 'sms.failed']);
    assert.deepEqual(webhookEventsFromText('sms.sent,sms.later'), ['sms.sent']);
  });
});
