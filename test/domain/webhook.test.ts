import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterAttempt,
  buildAttempt,
  buildPayload,
  headersFor,
  nextAttemptDelay,
  retrySchedule,
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
    assert.equal(body, '{"event_type":"sms.delivered","event_id":"evt_01","timestamp":"2025-03-01T09:30:00.000Z","data":{"sms_id":4711,"status":"delivered"}}');
    assert.equal(sign(body, 'whsec_test_secret'), 'sha256=9f4b22e6b6a97e349db587a28d6669f50a00cda7f13917dcaba1470dc74a3554');
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
    for (const [type, status] of [['sms.sent', 'sent'], ['sms.delivered', 'delivered'], ['sms.failed', 'failed']] as const) {
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
      { eventId: 'e', eventType: 'otp.verified', smsId: 5, status: 'delivered', extra: { sms_id: 99, mobile: '905321234567' } },
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

describe('nextAttemptDelay', () => {
  it('doubles from 10 s with equal jitter: half fixed, half random', () => {
    assert.deepEqual([1, 2, 3, 4].map((n) => nextAttemptDelay(n, () => 0)), [5_000, 10_000, 20_000, 40_000]);
    assert.deepEqual([1, 2, 3, 4].map((n) => nextAttemptDelay(n, () => 0.5)), [7_500, 15_000, 30_000, 60_000]);
    assert.equal(nextAttemptDelay(1, () => 0.999_999), 9_999);
  });

  it('is capped at one hour however many attempts failed', () => {
    assert.equal(nextAttemptDelay(12, () => 0), 1_800_000);
    assert.equal(nextAttemptDelay(10_000, () => 0.5), 2_700_000);
  });

  it('takes a configurable base and cap', () => {
    assert.deepEqual([1, 2, 3].map((n) => nextAttemptDelay(n, () => 0, { baseMs: 4 })), [2, 4, 8]);
    assert.equal(nextAttemptDelay(5, () => 0, { baseMs: 4, capMs: 10 }), 5);
  });
});

describe('retrySchedule', () => {
  it('lists the retries of the default 5 attempts', () => {
    assert.equal(DEFAULT_WEBHOOK_ATTEMPTS, 5);
    assert.deepEqual(retrySchedule(), [
      { attempt: 2, minDelayMs: 5_000, maxDelayMs: 10_000 },
      { attempt: 3, minDelayMs: 10_000, maxDelayMs: 20_000 },
      { attempt: 4, minDelayMs: 20_000, maxDelayMs: 40_000 },
      { attempt: 5, minDelayMs: 40_000, maxDelayMs: 80_000 },
    ]);
  });

  it('has no retries for a single attempt', () => {
    assert.deepEqual(retrySchedule(1), []);
  });
});

describe('afterAttempt', () => {
  const never = () => 0;

  it('delivers on an acknowledgement, even on the last attempt', () => {
    assert.deepEqual(afterAttempt(true, 1, 5, never), { state: 'delivered' });
    assert.deepEqual(afterAttempt(true, 5, 5, never), { state: 'delivered' });
  });

  it('retries after the backoff of this attempt until the last one, then fails', () => {
    assert.deepEqual(afterAttempt(false, 1, 3, never), { state: 'pending', delayMs: 5_000 });
    assert.deepEqual(afterAttempt(false, 2, 3, never, { baseMs: 100 }), { state: 'pending', delayMs: 100 });
    assert.deepEqual(afterAttempt(false, 3, 3, never), { state: 'failed' });
    assert.deepEqual(afterAttempt(false, 1, 1, never), { state: 'failed' });
  });
});

describe('the events a key\u2019s webhook takes', () => {
  it('parses all, or a list in canonical order without repeats or blanks', () => {
    assert.deepEqual(parseWebhookEventList('all'), { events: null });
    assert.deepEqual(parseWebhookEventList(' all '), { events: null });
    assert.deepEqual(parseWebhookEventList('sms.failed, sms.delivered,,sms.failed'), { events: ['sms.delivered', 'sms.failed'] });
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
