/**
 * The webhook outbox on every dialect: which state changes write events and in which
 * transaction, where events are routed after a key rotation, claims and leases, and how
 * attempts are recorded.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { FixedClock } from '../../../src/ports/clock.js';
import type { AttemptResult, ClaimedEvent } from '../../../src/ports/event-store.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { fixtureKey, pendingEvents, queueSend, sendAll } from '../../helpers/webhook-fixtures.js';
import { valueOf } from '../../helpers/results.js';

const hook = { webhookUrl: 'http://receiver.example/hook', webhookSecret: 'whsec' };

function result(
  e: ClaimedEvent,
  state: AttemptResult['state'],
  options: { manual?: boolean; status?: number | null; at?: number; next?: number } = {},
): AttemptResult {
  const status = options.status === undefined ? (state === 'delivered' ? 200 : 500) : options.status;
  return {
    id: e.id,
    leaseUntil: e.leaseUntil,
    attempt: {
      manual: options.manual ?? false,
      url: e.target.url,
      startedAt: options.at ?? 0,
      durationMs: 3,
      httpStatus: status,
      error: null,
    },
    state,
    nextAttemptAt: options.next ?? (options.at ?? 0) + 1000,
  };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `webhook events (${dialect.name})`, () => {
    async function withRuntime(work: (runtime: AppContainer, clock: FixedClock) => Promise<void>): Promise<void> {
      const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
      const runtime = await openAppContainer(await dialect.location(), clock);
      try {
        await work(runtime, clock);
      } finally {
        await runtime.close();
      }
    }

    it('writes sms.* events with each state change, only for /sms/send messages of keys with a webhook', async () => {
      await withRuntime(async (runtime) => {
        const hooked = await fixtureKey(runtime, hook);
        const plain = await fixtureKey(runtime);
        const [delivered = 0, expired = 0, failed = 0, rejected = 0] = await queueSend(runtime, hooked, 4);
        const [group = 0] = await queueSend(runtime, hooked, 1, 'group');
        const [otp = 0] = await queueSend(runtime, hooked, 1, 'otp');
        await queueSend(runtime, plain, 2);
        const now = runtime.clock.now();
        const claimed = await runtime.store.queue.claimDue(now, 100, now + 60_000);
        assert.equal(claimed.length, 8);
        await runtime.store.queue.markFailed(rejected, 'Rejected by the operator: test', now);
        await runtime.store.queue.markSentMany(
          claimed
            .filter((m) => m.id !== rejected)
            .map((m) => ({ messageId: m.id, carrier: 'test', carrierMessageIds: [`c-${m.id}`] })),
          now,
        );
        await runtime.store.queue.applyReceipts(
          [
            { carrierMessageId: `c-${delivered}`, status: 'delivered' },
            { carrierMessageId: `c-${expired}`, status: 'expired' },
            { carrierMessageId: `c-${failed}`, status: 'failed' },
            { carrierMessageId: `c-${group}`, status: 'delivered' },
            { carrierMessageId: `c-${otp}`, status: 'delivered' },
          ],
          now,
        );
        const events = await runtime.store.events.recentForKey(hooked.keyId, 100);
        const seen = events.map((e) => `${e.eventType}/${e.status}/${e.smsId}`).sort();
        const expected = [
          `sms.failed/failed/${rejected}`,
          ...[delivered, expired, failed].map((id) => `sms.sent/sent/${id}`),
          `sms.delivered/delivered/${delivered}`,
          `sms.failed/failed/${expired}`,
          `sms.failed/failed/${failed}`,
        ].sort();
        assert.deepEqual(seen, expected);
        assert.ok(
          events.every(
            (e) =>
              e.state === 'pending' &&
              e.attempts === 0 &&
              e.keyId === hooked.keyId &&
              /^evt_[0-9a-f]{12}[\w-]{16}$/.test(e.eventId),
          ),
        );
        assert.equal(new Set(events.map((e) => e.eventId)).size, events.length);
        assert.deepEqual(await runtime.store.events.recentForKey(plain.keyId, 100), []);
      });
    });

    it('writes no event when the state change that causes it is rolled back', async () => {
      await withRuntime(async (runtime) => {
        const key = await fixtureKey(runtime, hook);
        const [id = 0] = await queueSend(runtime, key, 1);
        const now = runtime.clock.now();
        await runtime.store.queue.claimDue(now, 10, now + 60_000);
        await assert.rejects(
          runtime.store.transaction(async (store) => {
            assert.ok(await store.queue.markFailed(id, 'failed', now));
            assert.equal((await store.events.recentForKey(key.keyId, 10)).length, 1, 'written inside the transaction');
            throw new Error('roll back');
          }),
          /roll back/,
        );
        assert.equal((await runtime.store.reports.findMessage(id, key.accountId))?.state, 'submitting');
        assert.deepEqual(await runtime.store.events.recentForKey(key.keyId, 10), []);
      });
    });

    it('routes events of a rotated key to the webhook of the key that replaced it, as set at the attempt', async () => {
      await withRuntime(async (runtime, clock) => {
        const old = await fixtureKey(runtime, { ...hook, webhookAttempts: 3 });
        await queueSend(runtime, old, 1);
        const rotated = await valueOf(runtime.admin.rotateKey(old.keyId, true));
        await valueOf(
          runtime.admin.updateKey(rotated.id, {
            webhookUrl: 'http://new.example/hook',
            webhookAttempts: 7,
            webhookRetryScheduleMs: [5_000, 90_000],
            webhookBatch: 10,
            webhookBatchWaitMs: 500,
          }),
        );
        await sendAll(runtime);
        const [event] = await runtime.store.events.claimDue(clock.now(), 10, clock.now() + 1000);
        assert.equal(event?.keyId, old.keyId);
        assert.deepEqual(event?.target, {
          keyId: rotated.id,
          accountId: old.accountId,
          url: 'http://new.example/hook',
          secret: 'whsec',
          maxAttempts: 7,
          retryScheduleMs: [5_000, 90_000],
          events: null,
          batch: 10,
          batchWaitMs: 500,
        });
        assert.equal(
          (await runtime.store.events.recentForKey(rotated.id, 10))[0]?.id,
          event?.id,
          'listed under the new key',
        );
        assert.equal((await runtime.store.events.recentForKey(old.keyId, 10)).length, 1, 'and under the old one');
      });
    });

    it('claims a due event once; the lease brings it back when it runs out', async () => {
      await withRuntime(async (runtime, clock) => {
        await pendingEvents(runtime, 5, hook);
        const now = clock.now();
        const first = await runtime.store.events.claimDue(now, 3, now + 1000);
        const second = await runtime.store.events.claimDue(now, 10, now + 1000);
        assert.deepEqual([first.length, second.length], [3, 2]);
        assert.equal(new Set([...first, ...second].map((e) => e.id)).size, 5);
        assert.equal((await runtime.store.events.claimDue(now + 999, 10, now + 2000)).length, 0, 'leased');
        const again = await runtime.store.events.claimDue(now + 1000, 10, now + 2000);
        assert.equal(again.length, 5, 'due again when the lease ran out');
        assert.ok(again.every((e) => e.attempts === 0 && e.leaseUntil === now + 2000));
      });
    });

    it('claims round-robin across keys, at most a share per key, none for keys given 0, and takes back what is released', async () => {
      await withRuntime(async (runtime, clock) => {
        const keys = [];
        for (const count of [5, 2, 3, 3]) keys.push((await pendingEvents(runtime, count, hook)).key.keyId);
        const [a = 0, b = 0, c = 0, d = 0] = keys;
        const now = clock.now();
        const claimed = await runtime.store.events.claimDue(now, 5, now + 1000, {
          perKey: 2,
          keyLimits: new Map([
            [c, 0],
            [d, 1],
          ]),
        });
        const count = (keyId: number) => claimed.filter((e) => e.keyId === keyId).length;
        // First of each key (a, b, d), then second (a, b): d's limit is 1, c is skipped.
        assert.deepEqual([a, b, c, d].map(count), [2, 2, 0, 1]);
        const ofA = claimed.filter((e) => e.keyId === a);
        await runtime.store.events.release(ofA, now + 10);
        const again = await runtime.store.events.claimDue(now + 10, 100, now + 2000, {
          perKey: 10,
          keyLimits: new Map(),
        });
        assert.deepEqual(
          [a, b, c, d].map((k) => again.filter((e) => e.keyId === k).length),
          [5, 0, 3, 2],
          'released events are due again; claimed ones are not',
        );
        assert.ok(again.filter((e) => e.keyId === a).every((e) => e.attempts === 0));
      });
    });

    it('never lets two concurrent claims share an event', async () => {
      await withRuntime(async (runtime, clock) => {
        await pendingEvents(runtime, 300, hook);
        const now = clock.now();
        const claims = await Promise.all(
          Array.from({ length: 4 }, () => runtime.store.events.claimDue(now, 100, now + 1000)),
        );
        const ids = claims.flat().map((e) => e.id);
        assert.equal(ids.length, 300);
        assert.equal(new Set(ids).size, 300);
      });
    });

    it('numbers every attempt, counts only automatic ones, and lets only the lease holder move the event on', async () => {
      await withRuntime(async (runtime, clock) => {
        await pendingEvents(runtime, 1, hook);
        const now = clock.now();
        const [stale] = await runtime.store.events.claimDue(now, 1, now + 1000);
        assert.ok(stale);
        const [current] = await runtime.store.events.claimDue(now + 1000, 1, now + 3000);
        assert.ok(current);
        // The first claimer's outcome arrives after its lease ran out: logged, not applied.
        await runtime.store.events.recordAttempts([result(stale, 'delivered', { at: now })], now + 1500);
        let record = await runtime.store.events.findEvent(current.id);
        assert.deepEqual([record?.state, record?.attempts, record?.log.length], ['pending', 0, 1]);
        await runtime.store.events.recordAttempts([result(current, 'pending', { at: now + 1600 })], now + 1600);
        const manual = await runtime.store.events.claimOne(current.eventId, now + 1700, now + 2700);
        assert.ok(manual && manual !== 'busy');
        assert.equal(await runtime.store.events.claimOne(current.id, now + 1700, now + 2700), 'busy');
        assert.equal(await runtime.store.events.claimOne('evt_missing', now, now + 1), null);
        assert.equal(manual.dueAt, now + 2600, 'keeps the automatic schedule');
        await runtime.store.events.recordAttempts(
          [result(manual, 'pending', { manual: true, at: now + 1700, status: 503, next: manual.dueAt })],
          now + 1700,
        );
        const [last] = await runtime.store.events.claimDue(now + 2600, 1, now + 4000);
        assert.ok(last);
        await runtime.store.events.recordAttempts([result(last, 'delivered', { at: now + 2600 })], now + 2600);
        record = await runtime.store.events.findEvent(current.eventId);
        assert.equal(record?.state, 'delivered');
        assert.equal(record?.attempts, 2, 'automatic attempts applied');
        assert.equal(record?.doneAt, now + 2600);
        assert.deepEqual(
          record?.log.map((a) => [a.attemptNo, a.manual, a.httpStatus]),
          [
            [1, false, 200],
            [2, false, 500],
            [3, true, 503],
            [4, false, 200],
          ],
        );
      });
    });

    it('requeues a key\u2019s failed events since a time with fresh attempts, not those in flight, pending or of other keys', async () => {
      await withRuntime(async (runtime, clock) => {
        const { key } = await pendingEvents(runtime, 3, hook);
        const other = await pendingEvents(runtime, 1, hook);
        const now = clock.now();
        const claimed = await runtime.store.events.claimDue(now, 10, now + 1000);
        await runtime.store.events.recordAttempts(
          claimed.map((e) => result(e, 'failed', { at: now })),
          now,
        );
        const [inFlight, ...rest] = claimed.filter((e) => e.keyId === key.keyId);
        assert.ok(inFlight && rest.length === 2);
        assert.ok(
          (await runtime.store.events.claimOne(inFlight.id, now + 10, now + 1010)) !== 'busy',
          'a manual attempt holds one',
        );
        assert.equal(await runtime.store.events.requeueFailed(key.keyId, now + 1, now + 20), 0, 'none created since');
        assert.equal(await runtime.store.events.requeueFailed(key.keyId, now, now + 20), 2);
        for (const e of rest) {
          const record = await runtime.store.events.findEvent(e.id);
          assert.deepEqual(
            [record?.state, record?.attempts, record?.nextAttemptAt, record?.doneAt, record?.log.length],
            ['pending', 0, now + 20, null, 1],
          );
        }
        assert.equal((await runtime.store.events.findEvent(inFlight.id))?.state, 'failed');
        assert.equal((await runtime.store.events.recentForKey(other.key.keyId, 1))[0]?.state, 'failed');
        assert.equal(
          await runtime.store.events.requeueFailed(key.keyId, now, now + 30),
          0,
          'pending ones are not failed',
        );
        assert.deepEqual(
          (await runtime.store.events.claimDue(now + 20, 10, now + 2000)).map((e) => e.id).sort(),
          rest.map((e) => e.id).sort(),
          'due again',
        );
      });
    });

    it('lists a key\u2019s most recent events first, up to the limit', async () => {
      await withRuntime(async (runtime) => {
        const { key } = await pendingEvents(runtime, 5, hook);
        const recent = await runtime.store.events.recentForKey(key.keyId, 3);
        assert.equal(recent.length, 3);
        assert.ok((recent[0]?.id ?? 0) > (recent[1]?.id ?? 0) && (recent[1]?.id ?? 0) > (recent[2]?.id ?? 0));
      });
    });
  });
}
