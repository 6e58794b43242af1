/**
 * The webhook courier against a real HTTP receiver on 127.0.0.1, on every dialect:
 * retries, timeouts, redirects, attempt budgets, the address guard and the concurrency
 * bound, each checked in what the receiver got and in what the store recorded.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { systemClock } from '../../src/ports/clock.js';
import { HttpWebhookSender } from '../../src/adapters/webhooks/http-webhook-sender.js';
import { WebhookDelivery } from '../../src/services/webhook-delivery.js';
import { WebhookAdmin } from '../../src/services/webhook-admin.js';
import { WebhookCourier } from '../../src/jobs/webhook-courier.js';
import type { WebhookCourierOptions } from '../../src/jobs/webhook-courier.js';
import type { EventRecord, EventStore } from '../../src/ports/event-store.js';
import { retryScale, sign } from '../../src/domain/webhook.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { countingClaims } from '../helpers/counting-claims.js';
import { pendingEvents } from '../helpers/webhook-fixtures.js';
import { answer, startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver, ReceiverHandler } from '../helpers/webhook-receiver.js';
import { pause, waitFor } from '../helpers/wait-for.js';
import { valueOf } from '../helpers/results.js';

const silent = pino({ level: 'silent' });
const secret = 'whsec_worker';

interface Rig {
  runtime: AppContainer;
  receiver: Receiver;
  courier: WebhookCourier;
  delivery: WebhookDelivery;
  /** The one event of the rig's key (most tests use one). */
  event(): Promise<EventRecord>;
  until(check: () => Promise<boolean> | boolean, what: string): Promise<void>;
}

interface RigOptions {
  handler?: ReceiverHandler;
  events?: number;
  attempts?: number;
  timeoutMs?: number;
  allowPrivate?: boolean;
  host?: string;
  courier?: Partial<WebhookCourierOptions>;
  /** Wraps the store the courier uses. */
  store?: (store: EventStore) => EventStore;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `webhook courier (${dialect.name})`, () => {
    async function withRig(options: RigOptions, work: (rig: Rig) => Promise<void>): Promise<void> {
      const runtime = await openAppContainer(await dialect.location(), systemClock);
      const receiver = await startReceiver(options.handler ?? answer(200));
      const sender = new HttpWebhookSender({ allowPrivate: options.allowPrivate ?? true });
      const delivery = new WebhookDelivery(sender, systemClock, {
        timeoutMs: options.timeoutMs ?? 2_000,
        backoff: { scale: retryScale(20) },
      });
      const courier = new WebhookCourier({
        store: options.store ? options.store(runtime.store.events) : runtime.store.events,
        delivery,
        clock: systemClock,
        log: silent,
        options: { concurrency: 8, batchSize: 50, idleMs: 5, ...options.courier },
      });
      const url = `http://${options.host ?? '127.0.0.1'}:${receiver.port}/hook`;
      const { key } = await pendingEvents(runtime, options.events ?? 1, {
        webhookUrl: url,
        webhookSecret: secret,
        webhookAttempts: options.attempts ?? 5,
      });
      const rig: Rig = {
        runtime,
        receiver,
        courier,
        delivery,
        async event() {
          const [e] = await runtime.store.events.recentForKey(key.keyId, 1);
          assert.ok(e, 'the key has an event');
          return e;
        },
        async until(check, what) {
          await waitFor(what, check, { timeoutMs: 10_000, intervalMs: 5 });
        },
      };
      courier.start();
      try {
        await work(rig);
      } finally {
        await courier.stop();
        sender.close();
        await receiver.close();
        await runtime.close();
      }
    }

    const settled = (rig: Rig) => async () => (await rig.event()).state !== 'pending';

    it('retries 500, 500 then 200: exactly three attempts of one event, each signed afresh and recorded', async () => {
      let n = 0;
      await withRig({ handler: (_req, res) => res.writeHead(++n <= 2 ? 500 : 200).end() }, async (rig) => {
        await rig.until(settled(rig), 'the event is delivered');
        await rig.courier.stop();
        const e = await rig.event();
        assert.equal(e.state, 'delivered');
        assert.equal(e.attempts, 3);
        assert.deepEqual(
          e.log.map((a) => [a.attemptNo, a.httpStatus, a.error, a.manual]),
          [
            [1, 500, null, false],
            [2, 500, null, false],
            [3, 200, null, false],
          ],
        );
        assert.equal(rig.receiver.requests.length, 3);
        const bodies = rig.receiver.requests.map((r) => JSON.parse(r.body) as { event_id: string; timestamp: string });
        assert.deepEqual(new Set(bodies.map((b) => b.event_id)), new Set([e.eventId]), 'one event_id across retries');
        assert.equal(new Set(bodies.map((b) => b.timestamp)).size, 3, 'each attempt has its own timestamp');
        for (const r of rig.receiver.requests) {
          assert.equal(r.headers['x-service-signature'], sign(r.body, secret));
          assert.equal(r.headers['x-service-timestamp'], (JSON.parse(r.body) as { timestamp: string }).timestamp);
        }
      });
    });

    it('gives up on a receiver that never recovers after exactly the key\u2019s attempts, waiting the backoff between them', async () => {
      await withRig({ handler: answer(503), attempts: 3 }, async (rig) => {
        await rig.until(settled(rig), 'the event has failed');
        // On purpose: time for an attempt after the last, which must not come.
        await pause(100);
        const e = await rig.event();
        assert.equal(e.state, 'failed');
        assert.deepEqual(
          e.log.map((a) => [a.attemptNo, a.httpStatus]),
          [
            [1, 503],
            [2, 503],
            [3, 503],
          ],
        );
        assert.equal(rig.receiver.requests.length, 3, 'no attempt after the last');
        const [a1, a2, a3] = e.log.map((a) => a.startedAt);
        // Base 20 ms with equal jitter: at least 10 ms, then at least 20 ms.
        assert.ok(
          (a2 ?? 0) - (a1 ?? 0) >= 10 && (a3 ?? 0) - (a2 ?? 0) >= 20,
          `spacing ${String(e.log.map((a) => a.startedAt))}`,
        );
      });
    });

    it('cuts a receiver that hangs at the attempt timeout and records it', async () => {
      await withRig({ handler: () => undefined, attempts: 1, timeoutMs: 200 }, async (rig) => {
        await rig.until(settled(rig), 'the attempt times out');
        const e = await rig.event();
        assert.equal(e.state, 'failed');
        assert.equal(e.log.length, 1);
        assert.deepEqual([e.log[0]?.httpStatus, e.log[0]?.error], [null, 'timeout']);
        assert.ok((e.log[0]?.durationMs ?? 0) >= 190, `duration ${e.log[0]?.durationMs}`);
        assert.equal(rig.receiver.requests.length, 1);
      });
    });

    it('counts a 302 as a failure and never follows it', async () => {
      await withRig(
        { handler: (_req, res) => res.writeHead(302, { Location: '/elsewhere' }).end(), attempts: 2 },
        async (rig) => {
          await rig.until(settled(rig), 'the event has failed');
          const e = await rig.event();
          assert.equal(e.state, 'failed');
          assert.deepEqual(
            e.log.map((a) => a.httpStatus),
            [302, 302],
          );
          assert.deepEqual(
            rig.receiver.requests.map((r) => r.path),
            ['/hook', '/hook'],
          );
        },
      );
    });

    it('refuses a destination that resolves to a private address, unless private destinations are allowed', async () => {
      await withRig({ allowPrivate: false, host: 'localhost', attempts: 1 }, async (rig) => {
        await rig.until(settled(rig), 'the attempt is refused');
        const e = await rig.event();
        assert.equal(e.state, 'failed');
        assert.match(e.log[0]?.error ?? '', /^refused destination: localhost is (127\.0\.0\.1|::1) \(loopback\)$/);
        assert.equal(rig.receiver.requests.length, 0, 'no connection was made');
        // The provider's option lets the same event through.
        const open = new WebhookDelivery(
          new HttpWebhookSender({ allowPrivate: true }),
          systemClock,
          rig.delivery.options,
        );
        try {
          const again = await valueOf(new WebhookAdmin(rig.runtime.store, open, systemClock).redeliver(e.eventId));
          assert.deepEqual(
            [again.state, again.attempts[1]?.http_status, again.attempts[1]?.manual],
            ['delivered', 200, true],
          );
        } finally {
          open.close();
        }
        assert.equal(rig.receiver.requests.length, 1);
      });
    });

    it('keeps at most `concurrency` attempts in flight and delivers each event once', async () => {
      let open = 0;
      let peak = 0;
      const handler: ReceiverHandler = (_req, res) => {
        open += 1;
        peak = Math.max(peak, open);
        setTimeout(() => {
          open -= 1;
          res.writeHead(204).end();
        }, 20);
      };
      await withRig(
        { handler, events: 12, courier: { concurrency: 3, destinations: { concurrency: 3 } } },
        async (rig) => {
          await rig.until(() => rig.receiver.requests.length >= 12, 'every event arrived');
          await rig.courier.stop();
          const ids = rig.receiver.requests.map((r) => (JSON.parse(r.body) as { event_id: string }).event_id);
          assert.equal(ids.length, 12);
          assert.equal(new Set(ids).size, 12);
          assert.ok(peak <= 3 && peak >= 2, `peak ${peak}`);
        },
      );
    });

    it('lets events gather after a claim that found fewer than it asked for, then claims them together', async () => {
      let counted: { store: EventStore; claims: number[] } | null = null;
      const store = (s: EventStore): EventStore => {
        counted = countingClaims(s);
        return counted.store;
      };
      await withRig({ events: 1, store, courier: { gatherMs: 600, destinations: { concurrency: 8 } } }, async (rig) => {
        const claims = counted?.claims ?? [];
        await rig.until(() => claims.length === 1, 'the first claim');
        // The courier polls every 5 ms (idleMs): without the pause each event would be claimed alone.
        for (let i = 0; i < 3; i++) {
          await pendingEvents(rig.runtime, 1, {
            webhookUrl: `http://127.0.0.1:${rig.receiver.port}/hook`,
            webhookSecret: secret,
          });
          await pause(30); // let the courier poll between inserts, so only the gather window joins them
        }
        await rig.until(() => rig.receiver.requests.length >= 4, 'every event arrived');
        assert.deepEqual(claims, [1, 3]);
      });
    });
  });
}
