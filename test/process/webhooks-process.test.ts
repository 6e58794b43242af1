/**
 * Webhooks through the real executable: the provider's commands (`key test-webhook`,
 * `webhook deliveries`, `webhook redeliver`, run in this process through the binary's
 * command tree: test/helpers/cli.ts) against real receivers and real `serve` processes, and
 * a server killed with SIGKILL while deliveries are pending, whose restart delivers every
 * one of them.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sign } from '../../src/domain/webhook.js';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import { adminFails } from '../helpers/cli.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { pause, waitFor } from '../helpers/wait-for.js';

const secret = 'whsec_cli_secret';
const dirs: string[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-hooks-'));
  dirs.push(dir);
  return dir;
}

function count(db: BetterSqlite3.Database, query: string): number {
  return Number((db.prepare(query).get() as { n: number } | undefined)?.n ?? 0);
}

type Delivery = {
  event_id: string;
  event_type: string;
  state: string;
  attempts: { attempt: number; manual: boolean; at: string; http_status: number | null; error: string | null }[];
};

describe('webhooks through the real executable', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('tests a key\u2019s webhook, lists its deliveries and delivers an event again', async () => {
    const store = ['--data', freshDir()];
    const receiver = await startReceiver();
    try {
      await admin(['store', 'init', ...store]);
      const account = await admin(['account', 'create', '--name', 'Hooks', ...store]);
      const key = await admin([
        'key',
        'create',
        '--account',
        String(account.id),
        '--webhook-url',
        `${receiver.url}/hook`,
        '--webhook-secret',
        secret,
        '--webhook-attempts',
        '2',
        ...store,
      ]);
      const id = String(key.id);

      // By default a loopback destination is refused: recorded, with the next attempt scheduled.
      const refused = (await admin(['key', 'test-webhook', '--id', id, ...store])) as unknown as Delivery;
      assert.deepEqual([refused.event_type, refused.state, refused.attempts.length], ['key.test', 'pending', 1]);
      assert.match(refused.attempts[0]?.error ?? '', /^refused destination: 127\.0\.0\.1 \(loopback\)$/);
      assert.equal(receiver.requests.length, 0);

      const ok = (await admin([
        'key',
        'test-webhook',
        '--id',
        id,
        '--webhook-allow-private',
        'true',
        ...store,
      ])) as unknown as Delivery;
      assert.deepEqual([ok.state, ok.attempts[0]?.http_status], ['delivered', 200]);
      const got = receiver.requests[0];
      assert.equal(got?.headers['x-service-signature'], sign(got?.body ?? '', secret));
      assert.deepEqual(JSON.parse(got?.body ?? '{}'), {
        event_type: 'key.test',
        event_id: ok.event_id,
        timestamp: got?.headers['x-service-timestamp'],
        data: { sms_id: 0 },
      });

      const listed = (await admin(['webhook', 'deliveries', '--key', id, ...store])) as unknown as {
        deliveries: Delivery[];
      };
      assert.deepEqual(
        listed.deliveries.map((d) => [d.event_id, d.state]),
        [
          [ok.event_id, 'delivered'],
          [refused.event_id, 'pending'],
        ],
      );
      const again = (await admin([
        'webhook',
        'redeliver',
        '--event',
        refused.event_id,
        '--webhook-allow-private',
        'true',
        ...store,
      ])) as unknown as Delivery;
      assert.equal(again.state, 'delivered');
      assert.deepEqual(
        again.attempts.map((a) => [a.attempt, a.manual, a.http_status]),
        [
          [1, false, null],
          [2, true, 200],
        ],
      );
      assert.equal(receiver.requests.length, 2);
      assert.equal(JSON.stringify([refused, ok, listed, again]).includes(secret), false, 'the secret is never printed');

      assert.equal(
        await adminFails(['webhook', 'redeliver', '--event', 'evt_missing', ...store]),
        'haberci: no webhook event evt_missing',
      );
      assert.equal(await adminFails(['key', 'test-webhook', '--id', '999', ...store]), 'haberci: no key with id 999');
      const plain = await admin(['key', 'create', '--account', String(account.id), ...store]);
      assert.match(await adminFails(['key', 'test-webhook', '--id', String(plain.id), ...store]), /has no webhook URL/);
    } finally {
      await receiver.close();
    }
  });

  it('spreads retries by the key\u2019s schedule: about 1 min after a first failure by default, the key\u2019s own when set', async () => {
    const store = ['--data', freshDir()];
    await admin(['store', 'init', ...store]);
    const account = await admin(['account', 'create', '--name', 'Schedule', ...store]);
    // 127.0.0.1 is refused (no --webhook-allow-private): every attempt fails without a request.
    const hook = ['--webhook-url', 'http://127.0.0.1:9/hook'];
    const plain = await admin(['key', 'create', '--account', String(account.id), ...hook, ...store]);
    assert.deepEqual(plain.webhook_retry_schedule_ms, [60_000, 600_000, 3_600_000, 21_600_000]);
    const own = await admin([
      'key',
      'create',
      '--account',
      String(account.id),
      ...hook,
      '--webhook-retry-schedule',
      '2h,1d',
      ...store,
    ]);
    assert.deepEqual(own.webhook_retry_schedule_ms, [7_200_000, 86_400_000]);

    /** Milliseconds from the first attempt of a key.test event to its next one. */
    const wait = async (keyId: unknown): Promise<number> => {
      const d = (await admin(['key', 'test-webhook', '--id', String(keyId), ...store])) as unknown as Delivery & {
        next_attempt_at: string;
      };
      assert.equal(d.state, 'pending');
      return Date.parse(d.next_attempt_at) - Date.parse(d.attempts[0]?.at ?? '');
    };
    const first = await wait(plain.id);
    assert.ok(first >= 48_000 && first <= 72_000 + 5_000, `default: ${first} ms`);
    const ownFirst = await wait(own.id);
    assert.ok(ownFirst >= 0.8 * 7_200_000 && ownFirst <= 1.2 * 7_200_000 + 5_000, `own: ${ownFirst} ms`);

    // Rotation keeps the schedule; default restores the default; nonsense is refused.
    const rotated = await admin(['key', 'rotate', '--id', String(own.id), ...store]);
    assert.deepEqual(
      (await admin(['key', 'show', '--id', String(rotated.id), ...store])).webhook_retry_schedule_ms,
      [7_200_000, 86_400_000],
    );
    assert.deepEqual(
      (await admin(['key', 'update', '--id', String(rotated.id), '--webhook-retry-schedule', 'default', ...store]))
        .webhook_retry_schedule_ms,
      [60_000, 600_000, 3_600_000, 21_600_000],
    );
    assert.match(
      await adminFails(['key', 'update', '--id', String(plain.id), '--webhook-retry-schedule', '5', ...store]),
      /"5" is not a delay from 1s to 7d/,
    );
  });

  it('queues every failed event of a key since a time again (webhook redeliver --key --since), and a running server delivers them', async () => {
    const store = ['--data', freshDir()];
    const receiver = await startReceiver();
    try {
      await admin(['store', 'init', ...store]);
      const account = await admin(['account', 'create', '--name', 'Outage', ...store]);
      // One attempt each, refused (loopback without --webhook-allow-private): three failed events.
      const key = await admin([
        'key',
        'create',
        '--account',
        String(account.id),
        '--webhook-url',
        `${receiver.url}/hook`,
        '--webhook-attempts',
        '1',
        ...store,
      ]);
      const failed: (Delivery & { created_at: string })[] = [];
      for (let i = 0; i < 3; i++)
        failed.push(
          (await admin(['key', 'test-webhook', '--id', String(key.id), ...store])) as unknown as Delivery & {
            created_at: string;
          },
        );
      assert.deepEqual(
        failed.map((d) => d.state),
        ['failed', 'failed', 'failed'],
      );
      // The events stay the old key's; after a rotation the new key's command reaches them.
      const rotated = await admin(['key', 'rotate', '--id', String(key.id), ...store]);
      const newKey = String(rotated.id);

      const since = failed[2]?.created_at ?? '';
      assert.deepEqual(await admin(['webhook', 'redeliver', '--key', newKey, '--since', since, ...store]), {
        key_id: rotated.id,
        since,
        queued: 1,
      });
      assert.deepEqual(await admin(['webhook', 'redeliver', '--key', newKey, '--since', '2020-01-01', ...store]), {
        key_id: rotated.id,
        since: '2020-01-01T00:00:00.000Z',
        queued: 2,
      });
      assert.equal(
        (await admin(['webhook', 'redeliver', '--key', newKey, '--since', '2020-01-01', ...store])).queued,
        0,
        'pending events are not failed ones',
      );
      const listed = (await admin(['webhook', 'deliveries', '--key', newKey, ...store])) as unknown as {
        deliveries: (Delivery & { next_attempt_at: string | null })[];
      };
      assert.deepEqual(
        listed.deliveries.map((d) => [d.state, d.attempts.length, d.next_attempt_at !== null]),
        [
          ['pending', 1, true],
          ['pending', 1, true],
          ['pending', 1, true],
        ],
      );
      assert.equal(receiver.requests.length, 0, 'queued, not attempted by the command');

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
        await waitFor('the three events', () => receiver.requests.length >= 3, { timeoutMs: 15_000 });
      } finally {
        server.child.kill('SIGTERM');
        // Once in a full run it ended by a signal, not its stop: say which, with its output.
        const code = await server.exited;
        assert.equal(code, 0, `exit ${code}, signal ${server.child.signalCode}:\n${server.output()}`);
      }
      const after = (await admin(['webhook', 'deliveries', '--key', newKey, ...store])) as unknown as {
        deliveries: Delivery[];
      };
      for (const d of after.deliveries) {
        assert.equal(d.state, 'delivered');
        assert.deepEqual(
          d.attempts.map((a) => [a.attempt, a.manual, a.http_status, a.error === null]),
          [
            [1, false, null, false],
            [2, false, 200, true],
          ],
          'the refused attempt stays in the log with its error',
        );
      }
      assert.deepEqual(
        new Set(receiver.requests.map((r) => (JSON.parse(r.body) as { event_id: string }).event_id)),
        new Set(failed.map((d) => d.event_id)),
      );

      assert.equal(
        await adminFails(['webhook', 'redeliver', '--key', newKey, ...store]),
        'haberci: give --event ID, or --key N with --since TIME',
      );
      assert.equal(
        await adminFails([
          'webhook',
          'redeliver',
          '--event',
          failed[0]?.event_id ?? '',
          '--key',
          newKey,
          '--since',
          since,
          ...store,
        ]),
        'haberci: give --event ID, or --key N with --since TIME',
      );
      assert.match(
        await adminFails(['webhook', 'redeliver', '--key', newKey, '--since', 'yesterday', ...store]),
        /must be an ISO 8601 time/,
      );
      const plain = await admin(['key', 'create', '--account', String(account.id), ...store]);
      assert.match(
        await adminFails(['webhook', 'redeliver', '--key', String(plain.id), '--since', since, ...store]),
        /has no webhook URL/,
      );
    } finally {
      await receiver.close();
    }
  });

  it('sends a key only the events its webhook takes (key --webhook-events), every event by default', async () => {
    const dir = freshDir();
    const store = ['--data', dir];
    const receiver = await startReceiver();
    const server = await startServer([
      ...store,
      '--sim-delay-ms',
      '0',
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--webhook-allow-private',
      'true',
    ]);
    try {
      const hook = ['--webhook-url', `${receiver.url}/hook`, '--webhook-secret', secret];
      const finalOnly = await provisionSender(store, 'Final', 100, [
        ...hook,
        '--webhook-events',
        'sms.delivered, sms.failed,sms.delivered',
      ]);
      const every = await provisionSender(store, 'Every', 100, hook);
      const shown = await admin(['key', 'show', '--id', finalOnly.keyId, ...store]);
      assert.deepEqual(shown.webhook_events, ['sms.delivered', 'sms.failed']);
      assert.deepEqual((await admin(['key', 'show', '--id', every.keyId, ...store])).webhook_events, [
        'sms.sent',
        'sms.delivered',
        'sms.failed',
        'sms.cancelled',
        'sms.received',
        'sms.clicked',
      ]);

      // 1234: delivered; 0000: failed (interfaces.md).
      const sentto = '905321111234,905321110000';
      for (const { apiKey } of [finalOnly, every]) {
        const answer = await postJson(`${server.url}/sms/send`, {
          api_key: apiKey,
          sentto,
          title: 'ACME',
          text: 'events',
          sms_lang: 0,
        });
        assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
      }
      const received = (): { type: string; to: string }[] =>
        receiver.requests.map((r) => {
          const body = JSON.parse(r.body) as { event_type: string; data: { sms_id: number } };
          return { type: body.event_type, to: String(body.data.sms_id) };
        });
      // Four events for the default key (sent and a final state each), two for the other.
      await waitFor('six webhook calls', () => receiver.requests.length >= 6, { timeoutMs: 20_000 });
      // On purpose: time for a seventh call, which must not come.
      await pause(300);
      const types = received()
        .map((e) => e.type)
        .sort();
      assert.deepEqual(types, ['sms.delivered', 'sms.delivered', 'sms.failed', 'sms.failed', 'sms.sent', 'sms.sent']);

      // Back to every event; a rotated key keeps its choice; an unknown name is refused.
      assert.deepEqual(
        (await admin(['key', 'update', '--id', finalOnly.keyId, '--webhook-events', 'all', ...store])).webhook_events,
        ['sms.sent', 'sms.delivered', 'sms.failed', 'sms.cancelled', 'sms.received', 'sms.clicked'],
      );
      await admin(['key', 'update', '--id', every.keyId, '--webhook-events', 'sms.received', ...store]);
      const rotated = await admin(['key', 'rotate', '--id', every.keyId, ...store]);
      assert.deepEqual((await admin(['key', 'show', '--id', String(rotated.id), ...store])).webhook_events, [
        'sms.received',
      ]);
      assert.equal(
        await adminFails([
          'key',
          'update',
          '--id',
          finalOnly.keyId,
          '--webhook-events',
          'sms.delivered,sms.bounced',
          ...store,
        ]),
        "error: option '--webhook-events <list>' argument 'sms.delivered,sms.bounced' is invalid. unknown event \"sms.bounced\" (use all, or names from sms.sent, sms.delivered, sms.failed, sms.cancelled, sms.received, sms.clicked).",
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await receiver.close();
    }
  });

  it('loses no pending delivery when the server is killed with SIGKILL and restarted', async () => {
    const dir = freshDir();
    const store = ['--data', dir];
    const serveArgs = [
      ...store,
      '--sim-delay-ms',
      '0',
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--log-level',
      'warn',
      '--webhook-allow-private',
      'true',
      '--webhook-retry-base-ms',
      '10',
      // Long: an answer the loaded machine delivers late must not count as a time-out, whose
      // attempt is recorded without its 200 though the receiver has it.
      '--webhook-timeout-ms',
      '10000',
    ];
    // The receiver is down while the first server runs, and comes back at the same address.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();

    const first = await startServer(serveArgs);
    let db: BetterSqlite3.Database | null = null;
    let receiver: Awaited<ReturnType<typeof startReceiver>> | null = null;
    try {
      const { apiKey } = await provisionSender(store, 'Kill', 1000, [
        '--webhook-url',
        `http://127.0.0.1:${port}/hook`,
        '--webhook-secret',
        secret,
        '--webhook-attempts',
        '30',
      ]);
      // Numbers ending 1000 to 1199: all delivered by the simulator, two events each.
      const sentto = Array.from({ length: 200 }, (_, i) => `9053212${1000 + i}`).join(',');
      const answer = await postJson(`${first.url}/sms/send`, {
        api_key: apiKey,
        sentto,
        title: 'ACME',
        text: 'kill test',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024');

      const sqlite = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true, fileMustExist: true });
      db = sqlite;
      // Every message sent and delivered (400 events), and the refused connections have paused
      // the destination (5 in a row): the other events wait untried, all pending.
      await waitFor(
        'the events, and attempts to the receiver that is down',
        () =>
          count(sqlite, 'SELECT count(*) n FROM webhook_events') === 400 &&
          count(sqlite, 'SELECT count(*) n FROM webhook_attempts') >= 5,
        { timeoutMs: 30_000 },
      );
      first.child.kill('SIGKILL');
      await first.exited;
      assert.equal(
        count(sqlite, `SELECT count(*) n FROM webhook_events WHERE state = 'pending'`),
        400,
        'all pending when killed',
      );

      const back = await startReceiver(undefined, port);
      receiver = back;
      const second = await startServer(serveArgs);
      try {
        await waitFor(
          'every event to be delivered after the restart',
          () => count(sqlite, `SELECT count(*) n FROM webhook_events WHERE state = 'delivered'`) === 400,
          { timeoutMs: 30_000 },
        );
      } finally {
        second.child.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      }
      const stored = (sqlite.prepare('SELECT event_id FROM webhook_events').all() as { event_id: string }[])
        .map((r) => r.event_id)
        .sort();
      const arrived = back.requests.map((r) => {
        assert.equal(r.headers['x-service-signature'], sign(r.body, secret));
        return (JSON.parse(r.body) as { event_id: string }).event_id;
      });
      assert.deepEqual([...new Set(arrived)].sort(), stored, 'every stored event arrived');
      // At least once: only attempts in flight at the kill (at most the concurrency) can repeat.
      assert.ok(arrived.length - stored.length <= 64, `${arrived.length - stored.length} repeats`);
      assert.equal(
        count(sqlite, 'SELECT count(*) n FROM webhook_attempts WHERE http_status = 200'),
        arrived.length,
        'every arrival recorded',
      );
    } finally {
      if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
      db?.close();
      await receiver?.close();
    }
  });
});
