import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Dispatcher, defaultDispatcherOptions, retryDelay } from '../../src/jobs/dispatcher.js';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { FixedClock, systemClock } from '../../src/ports/clock.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { countingClaims } from '../helpers/counting-claims.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import type { KeySettings } from '../../src/ports/keys.js';
import type { Transition } from '../../src/ports/dispatch-queue.js';
import { pause, waitFor } from '../helpers/wait-for.js';
import { valueOf } from '../helpers/results.js';

const silent = pino({ level: 'silent' });

/** Queues `count` messages of one send straight through the send service's store path. */
async function queueMessages(
  runtime: AppContainer,
  count: number,
  settings: Partial<KeySettings> = {},
): Promise<number[]> {
  const account = await valueOf(
    runtime.admin.createAccount({
      name: 'A',
      balanceMain: count * 2,
      balanceInternational: 0,
      perMinuteLimit: 0,
      otpBrand: '',
      ipAllow: [],
      globalSending: false,
    }),
  );
  const key = await valueOf(runtime.admin.createKey(account.id, { ...defaultKeySettings, ...settings }));
  const ids = await runtime.store.messages.allocateIds(count + 1);
  const [sendId = 0, ...messageIds] = ids;
  const now = runtime.clock.now();
  await runtime.store.messages.insertSends([
    {
      id: sendId,
      send: {
        accountId: account.id,
        keyId: key.id,
        kind: 'sms',
        sender: 'ACME',
        text: 'hello',
        lang: 0,
        contentType: 0,
        scheduledAt: null,
        sandbox: false,
        totalNumbers: count,
        invalidNumbers: 0,
        blockedNumbers: 0,
        smsCost: count,
        createdAt: now,
        priority: 0,
        pendingRecipients: null,
      },
    },
  ]);
  await runtime.store.messages.insertMessagesOf([
    {
      send: {
        id: sendId,
        accountId: account.id,
        keyId: key.id,
        sandbox: false,
        createdAt: now,
        dueAt: now,
        priority: 0,
      },
      ids: messageIds,
      messages: messageIds.map((_, i) => ({
        recipient: `9053212${String(i).padStart(5, '0')}`,
        text: null,
        smsCount: 1,
        operator: 'TURKCELL',
      })),
    },
  ]);
  return messageIds;
}

async function drain(dispatcher: Dispatcher): Promise<void> {
  while ((await dispatcher.runOnce()) > 0) {
    /* keep claiming until the queue is empty */
  }
}

describe('dispatcher', () => {
  it('backs off exponentially with a cap and honours a carrier hint', () => {
    const o = { retryBaseMs: 1000, retryMaxMs: 60_000 };
    assert.deepEqual(
      [1, 2, 3, 4, 7, 8, 30].map((a) => retryDelay(a, o)),
      [1000, 2000, 4000, 8000, 60_000, 60_000, 60_000],
    );
    assert.equal(retryDelay(1, o, 5000), 5000);
  });

  for (const dialect of testDialects()) {
    describeOn(dialect, dialect.name, () => {
      it('retries passing refusals with backoff and fails permanent ones, never losing a message', async () => {
        const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
        const runtime = await openAppContainer(await dialect.location(), clock);
        try {
          const ids = await queueMessages(runtime, 3);
          const [retried = 0, rejected = 0] = ids;
          const carrier = new RecordingCarrier('rec', (m, attempt) => {
            if (m.messageId === retried && attempt < 3) return { kind: 'retry', reason: 'throttled' };
            if (m.messageId === rejected) return { kind: 'rejected', reason: 'ESME_RINVDSTADR' };
            return { kind: 'accepted', carrierMessageIds: [] };
          });
          const d = new Dispatcher({
            store: runtime.store.queue,
            carriers: { live: carrier, sandbox: carrier },
            clock,
            log: silent,
            options: { ...defaultDispatcherOptions, retryBaseMs: 1000 },
          });
          await carrier.start(d);
          assert.equal(await d.runOnce(), 3);
          assert.equal(await d.runOnce(), 0, 'the retried message waits for its backoff');
          clock.advance(1000);
          assert.equal(await d.runOnce(), 1);
          clock.advance(2000);
          assert.equal(await d.runOnce(), 1);
          const states = await Promise.all(
            ids.map(async (id) => (await runtime.store.reports.findMessage(id, 1))?.state),
          );
          assert.deepEqual(states, ['sent', 'failed', 'sent']);
          assert.equal(carrier.submitted.filter((m) => m.messageId === retried).length, 3);
        } finally {
          await runtime.close();
        }
      });

      it('fails a message refused in passing maxAttempts times in a row, with the last reason, never dropping it', async () => {
        const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
        const runtime = await openAppContainer(await dialect.location(), clock);
        try {
          const [id = 0] = await queueMessages(runtime, 1);
          const carrier = new RecordingCarrier('rec', () => ({
            kind: 'retry',
            reason: 'SMSC queue full ESME_RMSGQFUL (0x14)',
            afterMs: 5000,
          }));
          const d = new Dispatcher({
            store: runtime.store.queue,
            carriers: { live: carrier, sandbox: carrier },
            clock,
            log: silent,
            options: { ...defaultDispatcherOptions, maxAttempts: 3, retryBaseMs: 1000 },
          });
          await carrier.start(d);
          for (let attempt = 1; attempt <= 3; attempt++) {
            assert.equal(await d.runOnce(), 1, `attempt ${attempt} claimed`);
            const m = await runtime.store.reports.findMessage(id, 1);
            if (attempt < 3) {
              assert.equal(m?.state, 'queued', `still queued after ${attempt} refusals`);
              assert.match(m?.detail ?? '', /^Waiting to retry: SMSC queue full/);
              assert.equal(await d.runOnce(), 0, 'it waits for the carrier hint');
              clock.advance(5000);
            } else {
              assert.equal(m?.state, 'failed');
              assert.equal(m?.detail, 'Not submitted after 3 attempts: SMSC queue full ESME_RMSGQFUL (0x14)');
            }
          }
          assert.equal(carrier.submitted.length, 3);
          clock.advance(60_000);
          assert.equal(await d.runOnce(), 0, 'a failed message is not claimed again');
        } finally {
          await runtime.close();
        }
      });

      it('lets messages gather after a claim that found fewer than it asked for, then claims them together', async () => {
        // Race-free in two parts (one run with a 600 ms gather failed under load when queueing
        // three messages took longer than the gather). First, with the first claim held until
        // three more messages are queued and have woken the loop: the claim after the gather
        // takes the three together. Then, with a gather far longer than the test: wakes after
        // a short claim do not end the gather, so nothing is claimed alone.
        const runtime = await openAppContainer(await dialect.location(), systemClock);
        const carrier = new RecordingCarrier('rec');
        await queueMessages(runtime, 1);
        let release: () => void = () => undefined;
        const released = new Promise<void>((resolve) => (release = resolve));
        let held = false;
        const queue = runtime.store.queue;
        const holding = new Proxy(queue, {
          get(target, property) {
            if (property === 'claimDue')
              return async (...args: Parameters<typeof queue.claimDue>) => {
                const claimed = await target.claimDue(...args);
                if (!held && claimed.length > 0) {
                  held = true;
                  await released;
                }
                return claimed;
              };
            const value: unknown = Reflect.get(target, property, target);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        });
        const { store, claims } = countingClaims(holding);
        const d = new Dispatcher({
          store,
          carriers: { live: carrier, sandbox: carrier },
          clock: systemClock,
          log: silent,
          options: { ...defaultDispatcherOptions, idleMs: 50, gatherMs: 600 },
        });
        try {
          await d.start();
          await waitFor('the first claim', () => held);
          // Each new message wakes the dispatcher; none of them is claimed alone.
          for (let i = 0; i < 3; i++) {
            await queueMessages(runtime, 1);
            d.wake.notify();
          }
          release();
          await waitFor('four submits', () => carrier.submitted.length === 4);
          assert.deepEqual(claims, [1, 3]);
        } finally {
          release();
          await d.stop();
        }

        const long = countingClaims(runtime.store.queue);
        const gathering = new Dispatcher({
          store: long.store,
          carriers: { live: carrier, sandbox: carrier },
          clock: systemClock,
          log: silent,
          options: { ...defaultDispatcherOptions, idleMs: 50, gatherMs: 600_000 },
        });
        try {
          await queueMessages(runtime, 1);
          await gathering.start();
          await waitFor('the first claim', () => long.claims.length === 1 && gathering.mode === 'gathering');
          for (let i = 0; i < 3; i++) {
            await queueMessages(runtime, 1);
            gathering.wake.notify();
          }
          // A few turns of the event loop, in which a wake that ended the gather would claim.
          await pause(50);
          assert.equal(gathering.mode, 'gathering', 'the wakes did not end the gather');
          assert.equal(long.attempts.made, 1, 'no message was claimed alone');
        } finally {
          await gathering.stop();
          await runtime.close();
        }
      });

      it('tells which of the state changes it reports wrote a webhook event', async () => {
        const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
        const runtime = await openAppContainer(await dialect.location(), clock);
        try {
          const hooked = await queueMessages(runtime, 2, {
            webhookUrl: 'http://receiver.example/hook',
            webhookSecret: 'whsec',
          });
          const plain = await queueMessages(runtime, 2);
          const carrier = new RecordingCarrier('rec');
          const told: Transition[] = [];
          const d = new Dispatcher({
            store: runtime.store.queue,
            carriers: { live: carrier, sandbox: carrier },
            clock,
            log: silent,
            options: defaultDispatcherOptions,
            onTransitions: (transitions) => told.push(...transitions),
          });
          await carrier.start(d);
          assert.equal(await d.runOnce(), 4);
          for (const m of carrier.submitted)
            await d.onReceipt({
              carrierMessageId: `rec-${m.messageId}-${carrier.submitted.indexOf(m) + 1}`,
              status: 'delivered',
            });
          const of = (ids: readonly number[]): Transition[] => told.filter((t) => ids.includes(t.messageId));
          const eventsOf = (ids: readonly number[]): number => of(ids).filter((t) => t.webhookEvent === true).length;
          const changesOf = (ids: readonly number[]): number => of(ids).length;
          assert.deepEqual(
            [changesOf(hooked), eventsOf(hooked)],
            [4, 4],
            'sent and delivered of two messages, each with an event',
          );
          assert.deepEqual([changesOf(plain), eventsOf(plain)], [4, 0], 'told of the changes, with no event');
          assert.equal((await runtime.store.events.claimDue(clock.now(), 100, clock.now() + 1000)).length, 4);
        } finally {
          await runtime.close();
        }
      });

      it('returns a message whose worker died mid-submit to the queue when its lease runs out', async () => {
        const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
        const runtime = await openAppContainer(await dialect.location(), clock);
        try {
          const [id = 0] = await queueMessages(runtime, 1);
          // A worker claims and then "dies": nothing settles the claim.
          assert.equal((await runtime.store.queue.claimDue(clock.now(), 10, clock.now() + 60_000)).length, 1);
          const carrier = new RecordingCarrier();
          const d = new Dispatcher({
            store: runtime.store.queue,
            carriers: { live: carrier, sandbox: carrier },
            clock,
            log: silent,
          });
          assert.equal(await d.runOnce(), 0);
          clock.advance(60_000);
          await d.maintain();
          assert.equal(await d.runOnce(), 1);
          assert.equal((await runtime.store.reports.findMessage(id, 1))?.state, 'sent');
        } finally {
          await runtime.close();
        }
      });
    });
  }

  const pg = testDialects().find((d) => d.name === 'postgres');
  if (pg) {
    describeOn(pg, 'two dispatchers on one PostgreSQL store', () => {
      it('submits every message exactly once', async () => {
        const location: StoreLocation = await pg.location();
        const first = await openAppContainer(location, systemClock);
        const second = await openAppContainer(location, systemClock);
        try {
          const ids = await queueMessages(first, 3000);
          const a = new RecordingCarrier('a');
          const b = new RecordingCarrier('b');
          const options = { ...defaultDispatcherOptions, batchSize: 50 };
          const da = new Dispatcher({
            store: first.store.queue,
            carriers: { live: a, sandbox: a },
            clock: systemClock,
            log: silent,
            options,
          });
          const db = new Dispatcher({
            store: second.store.queue,
            carriers: { live: b, sandbox: b },
            clock: systemClock,
            log: silent,
            options,
          });
          await Promise.all([drain(da), drain(db)]);
          const submitted = [...a.submitted, ...b.submitted].map((m) => m.messageId);
          assert.equal(submitted.length, ids.length, 'no message submitted twice');
          assert.deepEqual(
            [...new Set(submitted)].sort((x, y) => x - y),
            ids,
          );
          assert.ok(
            a.submitted.length > 0 && b.submitted.length > 0,
            `both dispatchers worked (${a.submitted.length} / ${b.submitted.length})`,
          );
        } finally {
          await first.close();
          await second.close();
        }
      });
    });
  }
});
