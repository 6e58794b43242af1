/**
 * verifyWebhook (exported by haberci/client) against requests built by the service's own
 * signer: a genuine event passes; a changed body, another secret, no signature, a header
 * time that is not the body's, and a stale time are refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildAttempt } from '../../src/domain/webhook.js';
import { verifyWebhook } from '../../src/client/index.js';

const sentAt = Date.UTC(2026, 2, 15, 9, 0, 0);
const secret = 'whsec-test-0123456789';
const attempt = buildAttempt({ eventId: 'evt_1', eventType: 'sms.delivered', smsId: 42 }, sentAt, secret);

describe('verifyWebhook', () => {
  it('accepts a genuine request within the tolerance, with the headers as Node or fetch gives them', () => {
    const v = verifyWebhook(attempt.body, attempt.headers, secret, { now: sentAt + 60_000 });
    assert.equal(v.ok && v.event.data.sms_id, 42);
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
});
