/**
 * Webhook buckets (issue 44) through a real `haberci serve` and a local receiver, on SQLite
 * and on PostgreSQL: a key's events arrive together in one signed POST `{"events": [...]}`,
 * a message's events in order; a bucket that is not full waits the key's wait (asserted as a
 * lower bound only: it cannot arrive sooner); a refused bucket is tried again whole and its
 * give-up is recorded on each event; a key left at 1 gets the single body as before.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from '../../src/domain/webhook.js';
import { verifyWebhook } from '../../src/client/verify-webhook.js';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { adminFails } from '../helpers/cli.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { ReceivedRequest, Receiver } from '../helpers/webhook-receiver.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const secret = 'whsec_buckets';

type Element = { event_type: string; event_id: string; timestamp: string; data: { sms_id: number } };
type Delivery = { event_id: string; state: string; attempts: { attempt: number; http_status: number | null }[] };

for (const store of ['sqlite', 'postgres'] as const) {
  const skip = store === 'postgres' && pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE' : false;
  describe(`webhook buckets (${store})`, { skip }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-buckets-'));
    let server: ServerProcess;
    let receiver: Receiver;
    /** When each request arrived (Date.now()), by its index in receiver.requests. */
    const arrived: number[] = [];
    after(async () => {
      if (server) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await receiver?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const schema = store === 'postgres' ? schemaForSuite() : null;
    const storeArgs = store === 'postgres' ? ['--database', schema?.url ?? ''] : ['--data', dir];

    before(async () => {
      if (skip) return;
      receiver = await startReceiver((req, res) => {
        arrived.push(Date.now());
        res.writeHead(req.path.startsWith('/refuse') ? 500 : 200);
        res.end();
      });
      if (store === 'sqlite') await admin(['store', 'init', ...storeArgs]);
      // The retry schedule scaled down a hundredfold: a key's 1 s step is 10 ms.
      server = await startServer([
        ...storeArgs,
        '--demo',
        'false',
        '--warm-up',
        '0',
        '--log-level',
        'warn',
        '--webhook-allow-private',
        'true',
        '--webhook-retry-base-ms',
        '600',
      ]);
    });

    const sender = (name: string, path: string, extra: readonly string[]): Promise<ProvisionedSender> =>
      provisionSender(storeArgs, name, 1000, [
        '--webhook-url',
        `${receiver.url}${path}`,
        '--webhook-secret',
        secret,
        ...extra,
      ]);
    const send = async (apiKey: string, sentto: string): Promise<void> => {
      const answer = await postJson(`${server.url}/sms/send`, { api_key: apiKey, sentto, title: 'ACME', text: 'kova' });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    };
    const at = (path: string): ReceivedRequest[] => receiver.requests.filter((r) => r.path === path);
    const elements = (r: ReceivedRequest): Element[] => (JSON.parse(r.body) as { events: Element[] }).events;

    it('sets and shows a key\u2019s bucket with key create and key update, and refuses sizes out of range', async () => {
      const made = await sender('Cli', '/cli', ['--webhook-batch', '7']);
      const shown = await admin(['key', 'show', '--id', made.keyId, ...storeArgs]);
      assert.deepEqual([shown.webhook_batch, shown.webhook_batch_wait_ms], [7, 0]);
      const updated = await admin([
        'key',
        'update',
        '--id',
        made.keyId,
        '--webhook-batch',
        '100',
        '--webhook-batch-wait-ms',
        '2500',
        ...storeArgs,
      ]);
      assert.deepEqual([updated.webhook_batch, updated.webhook_batch_wait_ms], [100, 2500]);
      const plain = await sender('Plain', '/plain-cli', []);
      assert.equal((await admin(['key', 'show', '--id', plain.keyId, ...storeArgs])).webhook_batch, 1);
      for (const [flag, value] of [
        ['--webhook-batch', '0'],
        ['--webhook-batch', '101'],
        ['--webhook-batch-wait-ms', '60001'],
        ['--webhook-batch-wait-ms', '-1'],
      ] as const) {
        const error = await adminFails(['key', 'update', '--id', made.keyId, flag, value, ...storeArgs]);
        assert.match(error, /must be (between|a whole number)/, `${flag} ${value}`);
      }
      assert.equal((await admin(['key', 'show', '--id', made.keyId, ...storeArgs])).webhook_batch, 100);
    });

    it('sends a full bucket as one signed POST, each message\u2019s events in order', async () => {
      // Two messages (delivered, failed: the simulator's 1234 and 0000) make four events; a
      // minute's wait means a bucket goes only when full.
      const key = await sender('Full', '/full', ['--webhook-batch', '4', '--webhook-batch-wait-ms', '60000']);
      await send(key.apiKey, '905321111234,905321110000');
      const [request] = await waitFor('the bucket', () => (at('/full').length > 0 ? at('/full') : undefined), {
        timeoutMs: 30_000,
      });
      assert.ok(request);
      assert.equal(request.headers['x-service-signature'], sign(request.body, secret));
      const verified = verifyWebhook(request.body, request.headers, secret);
      assert.ok(verified.ok && verified.shape === 'bucket', JSON.stringify(verified));
      const events = elements(request);
      assert.equal(events.length, 4);
      for (const e of events) assert.deepEqual(Object.keys(e), ['event_type', 'event_id', 'timestamp', 'data']);
      assert.equal(new Set(events.map((e) => e.timestamp)).size, 1, 'one attempt, one time');
      assert.equal(request.headers['x-service-timestamp'], events[0]?.timestamp);
      for (const smsId of new Set(events.map((e) => e.data.sms_id))) {
        const types = events.filter((e) => e.data.sms_id === smsId).map((e) => e.event_type);
        assert.equal(types[0], 'sms.sent', `message ${smsId}: ${types.join(', ')}`);
        assert.match(types[1] ?? '', /^sms\.(delivered|failed)$/);
      }
      const deliveries = (await admin(['webhook', 'deliveries', '--key', key.keyId, ...storeArgs])) as unknown as {
        deliveries: Delivery[];
      };
      assert.deepEqual(
        deliveries.deliveries.map((d) => d.state),
        ['delivered', 'delivered', 'delivered', 'delivered'],
      );
    });

    it('holds a bucket that is not full for the key\u2019s wait, then sends what it has', async () => {
      const waitMs = 1500;
      const key = await sender('Wait', '/wait', [
        '--webhook-batch',
        '100',
        '--webhook-batch-wait-ms',
        String(waitMs),
        '--webhook-events',
        'sms.sent',
      ]);
      const started = Date.now();
      await send(key.apiKey, '905321111234');
      await waitFor('the waiting bucket', () => at('/wait').length > 0, { timeoutMs: 30_000 });
      const index = receiver.requests.findIndex((r) => r.path === '/wait');
      // A lower bound only: the event was made after `started`, and its bucket waits from then.
      assert.ok(
        (arrived[index] ?? 0) - started >= waitMs,
        `arrived ${(arrived[index] ?? 0) - started} ms after the send`,
      );
      const [request] = at('/wait');
      assert.deepEqual(
        elements(request as ReceivedRequest).map((e) => e.event_type),
        ['sms.sent'],
      );
    });

    it('tries a refused bucket again whole, and records the give-up on each of its events', async () => {
      const key = await sender('Refuse', '/refuse', [
        '--webhook-batch',
        '3',
        '--webhook-batch-wait-ms',
        '60000',
        '--webhook-events',
        'sms.sent',
        '--webhook-attempts',
        '2',
        '--webhook-retry-schedule',
        '1s',
      ]);
      await send(key.apiKey, '905321111234,905321112234,905321113234');
      const deliveries = async (): Promise<Delivery[]> =>
        (
          (await admin(['webhook', 'deliveries', '--key', key.keyId, ...storeArgs])) as unknown as {
            deliveries: Delivery[];
          }
        ).deliveries;
      const done = await waitFor(
        'every event failed',
        async () => {
          const all = await deliveries();
          return all.length === 3 && all.every((d) => d.state === 'failed') ? all : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const posts = at('/refuse');
      assert.equal(posts.length, 2, 'one bucket, tried twice');
      const ids = posts.map((r) => elements(r).map((e) => e.event_id));
      assert.deepEqual(ids[1], ids[0], 'the same events, in the same order');
      assert.deepEqual([...(ids[0] ?? [])].sort(), done.map((d) => d.event_id).sort());
      for (const d of done)
        assert.deepEqual(
          d.attempts.map((a) => [a.attempt, a.http_status]),
          [
            [1, 500],
            [2, 500],
          ],
        );
    });

    it('posts each event alone, as before, for a key left at one event a request', async () => {
      const key = await sender('Single', '/single', ['--webhook-events', 'sms.sent']);
      await send(key.apiKey, '905321111234,905321112234');
      await waitFor('two single posts', () => at('/single').length >= 2, { timeoutMs: 30_000 });
      for (const request of at('/single')) {
        const body = JSON.parse(request.body) as Record<string, unknown>;
        assert.deepEqual(Object.keys(body), ['event_type', 'event_id', 'timestamp', 'data']);
        assert.equal(request.headers['x-service-signature'], sign(request.body, secret));
        const verified = verifyWebhook(request.body, request.headers, secret);
        assert.ok(verified.ok && verified.shape === 'event' && verified.event.event_type === 'sms.sent');
      }
    });
  });
}
