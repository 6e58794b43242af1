/**
 * verifyWebhook (exported by haberci/client) against requests built by the service's own
 * signer: a genuine event passes; a changed body, another secret, no signature, a header
 * time that is not the body's, and a stale time are refused.
 */
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildAttempt } from '../../src/domain/webhook.js';
import { buildBucketAttempt } from '../../src/domain/webhook-bucket.js';
import { verifyWebhook } from '../../src/client/index.js';

const sentAt = Date.UTC(2026, 2, 15, 9, 0, 0);
const secret = 'whsec-test-0123456789';
const attempt = buildAttempt({ eventId: 'evt_1', eventType: 'sms.delivered', smsId: 42 }, sentAt, secret);

describe('verifyWebhook', () => {
  it('accepts a genuine request within the tolerance, with the headers as Node or fetch gives them', () => {
    const v = verifyWebhook(attempt.body, attempt.headers, secret, { now: sentAt + 60_000 });
    assert.equal(v.ok && v.shape === 'event' && v.event.data.sms_id, 42);
    assert.deepEqual(v.ok && v.events.map((e) => e.event_id), ['evt_1']);
    const lower = Object.fromEntries(Object.entries(attempt.headers).map(([k, h]) => [k.toLowerCase(), h]));
    assert.equal(verifyWebhook(Buffer.from(attempt.body), new Headers(lower), secret, { now: sentAt }).ok, true);
  });

  it('refuses a changed body, another secret and a missing signature', () => {
    assert.deepEqual(verifyWebhook(attempt.body.replace('42', '43'), attempt.headers, secret, { now: sentAt }), {
      ok: false,
      reason: 'signature-mismatch',
    });
    assert.deepEqual(verifyWebhook(attempt.body, attempt.headers, 'another-secret', { now: sentAt }), {
      ok: false,
      reason: 'signature-mismatch',
    });
    const { 'X-Service-Signature': _, ...unsigned } = attempt.headers;
    assert.deepEqual(verifyWebhook(attempt.body, unsigned, secret, { now: sentAt }), {
      ok: false,
      reason: 'signature-missing',
    });
    assert.deepEqual(
      verifyWebhook(attempt.body, { ...attempt.headers, 'X-Service-Signature': 'sha256=00' }, secret, { now: sentAt }),
      { ok: false, reason: 'signature-mismatch' },
    );
  });

  it('refuses a stale timestamp, and a header time that is not the signed one', () => {
    assert.deepEqual(verifyWebhook(attempt.body, attempt.headers, secret, { now: sentAt + 301_000 }), {
      ok: false,
      reason: 'stale-timestamp',
    });
    assert.deepEqual(verifyWebhook(attempt.body, attempt.headers, secret, { now: sentAt - 301_000 }), {
      ok: false,
      reason: 'stale-timestamp',
    });
    assert.equal(
      verifyWebhook(attempt.body, attempt.headers, secret, { now: sentAt + 3_000_000, toleranceSeconds: 3600 }).ok,
      true,
    );
    const moved = { ...attempt.headers, 'X-Service-Timestamp': new Date(sentAt + 1000).toISOString() };
    assert.deepEqual(verifyWebhook(attempt.body, moved, secret, { now: sentAt }), {
      ok: false,
      reason: 'timestamp-mismatch',
    });
  });

  it('verifies and types a bucket: its events in order, each as a single request carries it', () => {
    const events = [
      { eventId: 'evt_a', eventType: 'sms.sent' as const, smsId: 7 },
      { eventId: 'evt_b', eventType: 'sms.delivered' as const, smsId: 7 },
      { eventId: 'evt_c', eventType: 'sms.sent' as const, smsId: 8 },
    ];
    const bucket = buildBucketAttempt(events, sentAt, secret);
    const v = verifyWebhook(bucket.body, bucket.headers, secret, { now: sentAt + 1000 });
    assert.ok(v.ok && v.shape === 'bucket', JSON.stringify(v));
    assert.equal(v.event, undefined);
    assert.deepEqual(
      v.events.map((e) => [e.event_id, e.event_type, e.data.sms_id]),
      [
        ['evt_a', 'sms.sent', 7],
        ['evt_b', 'sms.delivered', 7],
        ['evt_c', 'sms.sent', 8],
      ],
    );
    assert.deepEqual(v.bucket.events, v.events);
    const single = buildAttempt(events[1] ?? { eventId: '', eventType: 'sms.sent' }, sentAt, secret);
    assert.ok(bucket.body.startsWith('{"events":[{') && bucket.body.endsWith('}]}'));
    assert.ok(bucket.body.includes(single.body), 'an element is the single body, byte for byte');
  });

  it('refuses a changed bucket, a stale one, and a bucket with an element that is not an event', () => {
    const bucket = buildBucketAttempt([{ eventId: 'evt_a', eventType: 'sms.sent', smsId: 7 }], sentAt, secret);
    assert.deepEqual(
      verifyWebhook(bucket.body.replace('"sms_id":7', '"sms_id":9'), bucket.headers, secret, { now: sentAt }),
      {
        ok: false,
        reason: 'signature-mismatch',
      },
    );
    assert.deepEqual(verifyWebhook(bucket.body, bucket.headers, secret, { now: sentAt + 301_000 }), {
      ok: false,
      reason: 'stale-timestamp',
    });
    const odd = '{"events":[1]}';
    const headers = {
      ...bucket.headers,
      'X-Service-Signature': `sha256=${createHmac('sha256', secret).update(odd).digest('hex')}`,
    };
    assert.deepEqual(verifyWebhook(odd, headers, secret, { now: sentAt }), { ok: false, reason: 'malformed-body' });
    const empty = '{"events":[]}';
    const emptyHeaders = {
      ...bucket.headers,
      'X-Service-Signature': `sha256=${createHmac('sha256', secret).update(empty).digest('hex')}`,
    };
    assert.deepEqual(verifyWebhook(empty, emptyHeaders, secret, { now: sentAt }), {
      ok: false,
      reason: 'malformed-body',
    });
  });
});
