/**
 * The webhook courier shares its slots among destinations, on every dialect, with two real
 * receivers on 127.0.0.1 (two origins): a slow one that never answers and a fast one. The
 * fast receiver's events arrive while the slow one holds its share; a destination that
 * keeps timing out is paused while the others are served.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import pino from 'pino';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { systemClock } from '../../src/ports/clock.js';
import { HttpWebhookSender } from '../../src/adapters/webhooks/http-webhook-sender.js';
import { WebhookDelivery } from '../../src/services/webhook-delivery.js';
import { WebhookCourier } from '../../src/jobs/webhook-courier.js';
import type { WebhookCourierOptions } from '../../src/jobs/webhook-courier.js';
import type { EventStore } from '../../src/ports/event-store.js';
import { retryScale } from '../../src/domain/webhook.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { pendingEvents } from '../helpers/webhook-fixtures.js';
import { answer, startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';

const silent = pino({ level: 'silent' });

/** A receiver that never answers, counting the requests it holds open. */
async function hangingReceiver(): Promise<{ receiver: Receiver; open: () => number; peak: () => number }> {
  let open = 0;
  let peak = 0;
  const receiver = await startReceiver((_req, res: http.ServerResponse) => {
    open += 1;
    peak = Math.max(peak, open);
    res.on('close', () => (open -= 1));
  });
  return { receiver, open: () => open, peak: () => peak };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `webhook fairness (${dialect.name})`, () => {
    /** Runs a courier of 4 slots; `releases` counts the events it gave back unattempted. */
    async function withCourier(
      timeoutMs: number,
      options: Partial<WebhookCourierOptions>,
      work: (runtime: AppContainer, courier: WebhookCourier, releases: { events: number }) => Promise<void>,
    ): Promise<void> {
      const runtime = await openAppContainer(await dialect.location(), systemClock);
      const sender = new HttpWebhookSender({ allowPrivate: true });
      const delivery = new WebhookDelivery(sender, systemClock, { timeoutMs, backoff: { scale: retryScale(20) } });
      const events = runtime.store.events;
      const releases = { events: 0 };
      const counted: EventStore = Object.assign(Object.create(events) as EventStore, {
        release: (released: Parameters<EventStore['release']>[0], now: number) => {
          releases.events += released.length;
          return events.release(released, now);
        },
      });
      const courier = new WebhookCourier({
        store: counted,
        delivery,
        clock: systemClock,
        log: silent,
        options: { concurrency: 4, batchSize: 50, idleMs: 5, ...options },
      });
      courier.start();
      try {
        await work(runtime, courier, releases);
      } finally {
        await courier.stop();
        sender.close();
        await runtime.close();
      }
    }

    it('delivers a fast receiver\u2019s events while a slow one holds its share of the slots, never more', async () => {
      const slow = await hangingReceiver();
      const fast = await startReceiver(answer(204));
      try {
        // The slow receiver's attempts last the whole test (30 s timeout, far beyond it even on a loaded
        // machine): only its share of the 4 slots is held.
        await withCourier(30_000, { destinations: { concurrency: 2 } }, async (runtime, courier, releases) => {
          const slowKey = await pendingEvents(runtime, 20, { webhookUrl: `${slow.receiver.url}/hook` });
          await waitFor('the slow receiver holds its share', () => slow.open() === 2, { intervalMs: 5 });
          const created = Date.now();
          // Another key on the slow receiver: its destination is full, which the courier learns once.
          await pendingEvents(runtime, 5, { webhookUrl: `${slow.receiver.url}/other` });
          await pendingEvents(runtime, 10, { webhookUrl: `${fast.url}/hook` });
          courier.wake.notify();
          await waitFor('the fast receiver got its events', () => fast.requests.length >= 10, { intervalMs: 5 });
          const waited = Date.now() - created;
          // Every slow attempt is still in flight: the fast events did not wait for one to end.
          assert.equal(slow.receiver.requests.length, 2, 'the slow receiver never got more than its share');
          assert.equal(slow.peak(), 2);
          assert.ok(
            releases.events <= 2,
            `${releases.events} events given back: the full destination's other key is claimed at most once`,
          );
          const slowEvents = await runtime.store.events.recentForKey(slowKey.key.keyId, 100);
          assert.equal(
            slowEvents.filter((e) => e.log.length > 0).length,
            0,
            `no slow attempt had ended when the fast events had all arrived (after ${waited} ms)`,
          );
          // Cut the hanging attempts, so stopping the courier does not wait for their timeout.
          await slow.receiver.close();
        });
      } finally {
        await slow.receiver.close();
        await fast.close();
      }
    });

    it('pauses a destination that keeps timing out; its unattempted events wait (its due retries do not) while another destination is served', async () => {
      const slow = await hangingReceiver();
      const fast = await startReceiver(answer(204));
      try {
        const destinations = { concurrency: 2, failuresBeforePause: 3, pauseMs: 60_000 };
        // 500 ms: the fast receiver answers well within it even on a loaded machine, so only the slow one times out.
        await withCourier(500, { destinations }, async (runtime, courier) => {
          const slowKey = await pendingEvents(runtime, 10, { webhookUrl: `${slow.receiver.url}/hook` });
          const timeouts = async () =>
            (await runtime.store.events.recentForKey(slowKey.key.keyId, 100))
              .flatMap((e) => e.log)
              .filter((a) => a.error === 'timeout').length;
          await waitFor(
            'three timeouts and no slow attempt in flight',
            async () => (await timeouts()) >= 3 && slow.open() === 0,
            { intervalMs: 5 },
          );
          const eventIds = (requests: readonly { body: string }[]) =>
            new Set(requests.map((r) => (JSON.parse(r.body) as { event_id: string }).event_id));
          const attempted = eventIds(slow.receiver.requests);

          await pendingEvents(runtime, 5, { webhookUrl: `${fast.url}/hook` });
          courier.wake.notify();
          await waitFor('the fast receiver got its events', () => fast.requests.length >= 5, { intervalMs: 5 });
          // Control: the unattempted slow events are pending and due, so only the pause holds
          // them; the courier, serving the fast destination meanwhile, is awake. (The attempted
          // ones are retried on their schedule, each time out again and wait anew: on a loaded
          // machine they were never all due at once.)
          await waitFor(
            'every unattempted slow event pending and due',
            async () =>
              (await runtime.store.events.recentForKey(slowKey.key.keyId, 100))
                .filter((e) => !attempted.has(e.eventId))
                .every((e) => e.state === 'pending' && e.nextAttemptAt <= Date.now()),
            { intervalMs: 5 },
          );
          await pendingEvents(runtime, 5, { webhookUrl: `${fast.url}/hook` });
          courier.wake.notify();
          await waitFor(
            'the fast receiver got its later events, claimed beside the due slow ones',
            () => fast.requests.length >= 10,
            { intervalMs: 5 },
          );
          // The attempted events' retries go out on their schedule; no other event reaches the paused destination.
          assert.ok(attempted.size < 10, `${attempted.size} of 10 slow events attempted before the pause`);
          assert.deepEqual(eventIds(slow.receiver.requests), attempted, 'no first attempt to the paused destination');
        });
      } finally {
        await slow.receiver.close();
        await fast.close();
      }
    });
  });
}
