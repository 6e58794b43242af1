/**
 * docs/operations.md, "Following one message through the logs", on a real `haberci serve` at
 * --log-level debug: the request id the client got leads to the access line, whose message
 * ids lead to the dispatch thread's submit and receipt lines and the webhook thread's attempt
 * line.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, provisionSender, startServer } from '../helpers/server-process.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'haberci-follow-'));
const store = ['--data', dir];

describe('following one message through the logs', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('leads from the request id to the submit, receipt and webhook lines', async () => {
    const receiver = await startReceiver();
    await admin(['store', 'init', ...store]);
    const sender = await provisionSender(store, 'Follow', 100, [
      '--webhook-url',
      `${receiver.url}/hook`,
      '--webhook-secret',
      'follow-secret',
    ]);
    const server = await startServer([
      ...store,
      '--log-level',
      'debug',
      '--sim-delay-ms',
      '0',
      '--demo',
      'false',
      '--webhook-allow-private',
      'true',
    ]);
    const requestId = 'follow-me-1';
    let lines: Record<string, unknown>[] = [];
    const parsed = (): Record<string, unknown>[] =>
      server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    try {
      const response = await fetch(`${server.url}/sms/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ api_key: sender.apiKey, sentto: '905321234567', title: 'ACME', text: 'Follow me' }),
      });
      assert.equal(response.headers.get('x-request-id'), requestId);
      const messageId = ((await response.json()) as { sms_id: number }).sms_id;
      await waitFor('the delivered webhook', () => receiver.requests.some((r) => r.body.includes('sms.delivered')), {
        timeoutMs: 15_000,
        intervalMs: 20,
      });
      await waitFor(
        'the attempt line',
        () => parsed().some((l) => l.msg === 'webhooks: attempt recorded' && l.eventType === 'sms.delivered'),
        { timeoutMs: 5_000, intervalMs: 20 },
      );
      lines = parsed();
      const access = lines.find((l) => l.requestId === requestId);
      assert.equal(access?.msg, 'api request');
      assert.equal(access?.level, 30);
      assert.deepEqual(access?.messageIds, [messageId]);
      // A receipt that came before the submit's outcome was written is kept, then recorded
      // by the next maintenance round: either line is the receipt's. The sms.sent webhook may
      // be attempted before or after it.
      const ofMessage = lines
        .filter((l) => l.messageId === messageId)
        .map((l) =>
          `${String(l.msg)}${l.eventType === undefined ? '' : ` ${String(l.eventType)}`}`.replace(
            'kept receipt recorded',
            'receipt recorded',
          ),
        );
      // Threads log on their own: lines of the two batches (submits, receipts) may interleave.
      assert.deepEqual(
        ofMessage.filter((m) => m !== 'webhooks: attempt recorded sms.sent').sort(),
        ['dispatcher: receipt recorded', 'dispatcher: submit recorded', 'webhooks: attempt recorded sms.delivered'],
        JSON.stringify(ofMessage),
      );
      assert.ok(ofMessage.includes('webhooks: attempt recorded sms.sent'), 'the sms.sent attempt too');
      const submit = lines.find((l) => l.msg === 'dispatcher: submit recorded' && l.messageId === messageId);
      assert.equal(submit?.level, 20, 'debug');
      assert.equal(submit?.outcome, 'accepted');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await receiver.close();
    }
  });
});
