/**
 * Webhook fairness across accounts (issue 30, item 10), through `haberci serve`: one account
 * whose four keys point at four receivers that hold every request (four destinations, each
 * within its own share) must not take every webhook slot; another account's events reach
 * its fast receiver while those requests are still held. `--webhook-concurrency 8`: a
 * destination's share is 2, an account's half, 4.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAppContainer } from '../../src/main.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { postJson, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { answer, startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';
import { valueOf } from '../helpers/results.js';

describe('webhook slots shared across accounts: haberci serve with slow and fast receivers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-hook-accounts-'));
  const held: ServerResponse[] = [];
  const slow: Receiver[] = [];
  let fast: Receiver;
  let server: ServerProcess;
  let fastKey = '';

  before(async () => {
    for (let i = 0; i < 4; i += 1) slow.push(await startReceiver((_req, res) => void held.push(res)));
    fast = await startReceiver(answer(200));
    // Provisioned in-process on the folder serve then opens: four keys of one account to the
    // slow receivers, each with four events due; a second account with a key to the fast one.
    const runtime = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(dir) });
    try {
      const account = (name: string, balance: number) =>
        valueOf(
          runtime.admin.createAccount({
            name,
            balanceMain: balance,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        );
      const busy = await account('Busy', 0);
      for (const receiver of slow) {
        const key = await valueOf(
          runtime.admin.createKey(busy.id, {
            ...defaultKeySettings,
            webhookUrl: `${receiver.url}/hook`,
            webhookSecret: 'slow-secret',
          }),
        );
        for (let e = 0; e < 4; e += 1)
          await runtime.store.events.createPending(
            { keyId: key.id, eventType: 'key.test', smsId: null, status: null },
            runtime.clock.now(),
          );
      }
      const quiet = await account('Quiet', 10);
      await runtime.store.senderIds.addSenderId(quiet.id, 'ACME', 'approved', runtime.clock.now());
      fastKey = (
        await valueOf(
          runtime.admin.createKey(quiet.id, {
            ...defaultKeySettings,
            webhookUrl: `${fast.url}/hook`,
            webhookSecret: 'fast-secret',
          }),
        )
      ).api_key;
    } finally {
      await runtime.close();
    }
    server = await startServer([
      '--data',
      dir,
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--webhook-allow-private',
      'true',
      '--webhook-concurrency',
      '8',
      '--webhook-timeout-ms',
      '120000',
    ]);
  });

  after(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    for (const res of held) res.destroy();
    for (const r of [...slow, fast]) await r.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers another account\u2019s webhooks while one account\u2019s four slow receivers hold their requests', async () => {
    await waitFor('the busy account\u2019s attempts to be held', () => held.length >= 4, { timeoutMs: 30_000 });
    const sent = await postJson(`${server.url}/sms/send`, {
      api_key: fastKey,
      sentto: '905321110031',
      title: 'ACME',
      text: 'hello',
    });
    assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
    await waitFor('the quiet account\u2019s webhook at its fast receiver', () => fast.requests.length >= 1, {
      timeoutMs: 30_000,
    });
    // Every request of the busy account is still held: the quiet one did not wait for them.
    assert.equal(
      held.every((res) => !res.writableEnded),
      true,
    );
    assert.ok(held.length <= 4, `at most the account's share (4) in flight: ${held.length}`);
    assert.deepEqual(
      slow.map((r) => r.requests.length).filter((n) => n > 2),
      [],
      'no destination beyond its share (2)',
    );
  });
});
