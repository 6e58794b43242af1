import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  acknowledge,
  failWith,
  RecordingWebhookSender,
} from '../../../src/adapters/webhooks/recording-webhook-sender.js';

const request = { url: 'https://hooks.example.com/in', body: '{}', headers: {}, timeoutMs: 1_000 };

describe('RecordingWebhookSender', () => {
  it('acknowledges with 200 by default and records the request', async () => {
    const sender = new RecordingWebhookSender();
    assert.deepEqual(await sender.send(request), { ok: true, status: 200, error: null, durationMs: 1 });
    assert.deepEqual(sender.requests, [request]);
  });

  it('plays a script by request index', async () => {
    const sender = new RecordingWebhookSender((_r, i) =>
      i === 0 ? failWith('timeout') : i === 1 ? acknowledge(503) : acknowledge(),
    );
    const outcomes = [await sender.send(request), await sender.send(request), await sender.send(request)];
    assert.deepEqual(
      outcomes.map((o) => [o.ok, o.status, o.error]),
      [
        [false, null, 'timeout'],
        [false, 503, null],
        [true, 200, null],
      ],
    );
    assert.equal(sender.requests.length, 3);
  });
});
