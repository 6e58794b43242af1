/**
 * A receiver that always answers 500 gets each event's attempts by the key's schedule:
 * the destination's pauses (after 5 unhealthy attempts in a row) hold only first attempts,
 * and every step counts from when the attempt was due.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, startServer } from '../helpers/server-process.js';
import { answer, startReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';

type Delivery = {
  event_id: string;
  state: string;
  attempts: { attempt: number; at: string; http_status: number | null }[];
};

describe('webhook retries of a failing destination', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-retries-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives three always-500 events their five attempts within the schedule, pauses notwithstanding', async () => {
    const store = ['--data', dir];
    const receiver = await startReceiver(answer(500));
    await admin(['store', 'init', ...store]);
    const account = await admin(['account', 'create', '--name', 'Retries', ...store]);
    const key = await admin([
      'key',
      'create',
      '--account',
      String(account.id),
      '--webhook-url',
      `${receiver.url}/hook`,
      '--webhook-attempts',
      '5',
      '--webhook-retry-schedule',
      '1s,1s,1s,1s',
      ...store,
    ]);
    const id = String(key.id);
    const server = await startServer([
      ...store,
      '--demo',
      'false',
      '--warm-up',
      '0',
      '--log-level',
      'warn',
      '--webhook-allow-private',
      'true',
    ]);
    try {
      // Each command makes the first attempt (500); the server makes the other four.
      for (let i = 0; i < 3; i++)
        await admin(['key', 'test-webhook', '--id', id, '--webhook-allow-private', 'true', ...store]);
      const deliveries = async () =>
        ((await admin(['webhook', 'deliveries', '--key', id, ...store])) as unknown as { deliveries: Delivery[] })
          .deliveries;
      await waitFor('every event failed', async () => (await deliveries()).every((d) => d.state === 'failed'), {
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      const done = await deliveries();
      assert.equal(done.length, 3);
      assert.equal(receiver.requests.length, 15, 'five attempts per event, each reaching the receiver');
      // The schedule's total is 4 s (+20 % jitter at most); a pause of the destination (10 s at
      // first) would put the later attempts of some event far beyond it.
      const withinMs = 4 * 1_200 + 3_000;
      for (const d of done) {
        assert.deepEqual(
          d.attempts.map((a) => [a.attempt, a.http_status]),
          [1, 2, 3, 4, 5].map((n) => [n, 500]),
        );
        const span = Date.parse(d.attempts[4]?.at ?? '') - Date.parse(d.attempts[0]?.at ?? '');
        assert.ok(span <= withinMs, `${d.event_id}: five attempts over ${span} ms, the schedule allows ${withinMs}`);
      }
      assert.match(server.output(), /destination keeps failing/, 'the destination was paused meanwhile');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await receiver.close();
    }
  });
});
