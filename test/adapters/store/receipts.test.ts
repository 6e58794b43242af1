/**
 * Delivery receipts on every dialect, through the message store: multi-part messages,
 * receipts that come before their submit's answer, receipts that come twice, the answer
 * and its place for each receipt of a batch, and batches larger than one statement holds.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import { storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { AdminService, defaultKeySettings } from '../../../src/services/admin.js';
import { FixedClock } from '../../../src/ports/clock.js';
import type { CarrierReceipt } from '../../../src/ports/carrier.js';
import type { DispatchQueue, Transition } from '../../../src/ports/dispatch-queue.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { valueOf } from '../../helpers/results.js';

const hook = { webhookUrl: 'http://receiver.example/hook', webhookSecret: 'whsec' };

interface Fixture {
  handle: StoreConnection;
  store: SqlStore;
  /** The dispatch queue, which takes the receipts. */
  messages: DispatchQueue;
  clock: FixedClock;
  keyId: number;
  accountId: number;
  /** Queues `count` messages of one /sms/send and claims them. */
  claimed(count: number): Promise<number[]>;
  /** Records a claimed message sent with these carrier ids (one per part). */
  sent(messageId: number, ...carrierIds: string[]): Promise<Transition[]>;
  state(messageId: number): Promise<{ state: string; detail: string | null; doneAt: number | null }>;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `delivery receipts (${dialect.name})`, () => {
    async function withStore(
      work: (f: Fixture) => Promise<void>,
      settings: Partial<typeof defaultKeySettings> = {},
    ): Promise<void> {
      const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
      const handle = openConnection(await dialect.location());
      await migrate(handle);
      const store = storeOn(handle);
      try {
        const admin = new AdminService(store, clock);
        const account = await valueOf(
          admin.createAccount({
            name: 'Receipts',
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        );
        const key = await valueOf(admin.createKey(account.id, { ...defaultKeySettings, ...settings }));
        const messages = store.queue;
        const f: Fixture = {
          handle,
          store,
          messages,
          clock,
          keyId: key.id,
          accountId: account.id,
          async claimed(count) {
            const [sendId = 0, ...ids] = await store.messages.allocateIds(count + 1);
            const now = clock.now();
            await store.messages.insertSends([
              {
                id: sendId,
                send: {
                  accountId: account.id,
                  keyId: key.id,
                  kind: 'sms',
                  sender: 'ACME',
                  text: 'hi',
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
            await store.messages.insertMessagesOf([
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
                ids: ids,
                messages: ids.map((_, i) => ({
                  recipient: `905321${String(1000 + i).padStart(6, '0')}`,
                  text: null,
                  smsCount: 1,
                  operator: 'TURKCELL',
                })),
              },
            ]);
            const claimed = await messages.claimDue(now, 100_000, now + 60_000);
            assert.deepEqual(
              claimed.map((m) => m.id),
              ids,
            );
            return ids;
          },
          async sent(messageId, ...carrierIds) {
            const [transitions = []] = await messages.markSentMany(
              [{ messageId, carrier: 'test', carrierMessageIds: carrierIds }],
              clock.now(),
            );
            return transitions;
          },
          async state(messageId) {
            const m = await store.reports.findMessage(messageId, account.id);
            assert.ok(m);
            return { state: m.state, detail: m.detail, doneAt: m.doneAt };
          },
        };
        await work(f);
      } finally {
        await store.close();
      }
    }

    const plain = (t: Transition | 'unmatched' | null): Transition | 'unmatched' | null =>
      t === null || t === 'unmatched' ? t : { messageId: t.messageId, keyId: t.keyId, state: t.state };

    it('delivers a multi-part message only when every part is delivered, with the last part’s detail and time', async () => {
      await withStore(async (f) => {
        const [id = 0] = await f.claimed(1);
        await f.sent(id, 'p-1', 'p-2', 'p-3');
        const now = f.clock.now();
        assert.deepEqual(
          await f.messages.applyReceipts(
            [{ carrierMessageId: 'p-2', status: 'delivered', detail: 'two', doneAt: now + 1 }],
            now,
          ),
          [null],
        );
        assert.deepEqual(
          await f.messages.applyReceipts(
            [{ carrierMessageId: 'p-1', status: 'delivered', detail: 'one', doneAt: now + 2 }],
            now,
          ),
          [null],
        );
        assert.equal((await f.state(id)).state, 'sent');
        const last = await f.messages.applyReceipts(
          [{ carrierMessageId: 'p-3', status: 'delivered', detail: 'three', doneAt: now + 3 }],
          now,
        );
        assert.deepEqual(last.map(plain), [{ messageId: id, keyId: f.keyId, state: 'delivered' }]);
        assert.deepEqual(await f.state(id), { state: 'delivered', detail: 'three', doneAt: now + 3 });
      });
    });

    it('a receipt settles a message whose late submit answer found it queued again, so it is not submitted twice', async () => {
      await withStore(async (f) => {
        const [id = 0] = await f.claimed(1);
        const now = f.clock.now();
        // The lease ran out before the carrier answered: the message is queued again.
        assert.equal((await f.messages.requeueExpiredLeases(now + 60_001)).requeued, 1);
        assert.deepEqual(await f.sent(id, 'late-1'), [], 'the late answer moves nothing');
        const settled = await f.messages.applyReceipts([{ carrierMessageId: 'late-1', status: 'delivered' }], now);
        assert.deepEqual(settled.map(plain), [{ messageId: id, keyId: f.keyId, state: 'delivered' }]);
        assert.equal((await f.state(id)).state, 'delivered', 'the receipt proves the carrier has it');
        assert.deepEqual(await f.messages.claimDue(now, 10, now + 60_000), [], 'never claimed (and submitted) again');
      });
    });

    it('fails a multi-part message at its first failed part and ignores the parts after it', async () => {
      await withStore(async (f) => {
        const [id = 0, other = 0] = await f.claimed(2);
        await f.sent(id, 'q-1', 'q-2');
        await f.sent(other, 'o-1', 'o-2');
        const now = f.clock.now();
        const answers = await f.messages.applyReceipts(
          [
            { carrierMessageId: 'o-1', status: 'delivered' },
            { carrierMessageId: 'q-2', status: 'failed', detail: 'stat:UNDELIV' },
            { carrierMessageId: 'o-2', status: 'expired', detail: 'stat:EXPIRED', doneAt: now - 5 },
          ],
          now,
        );
        assert.deepEqual(answers.map(plain), [
          null,
          { messageId: id, keyId: f.keyId, state: 'failed' },
          { messageId: other, keyId: f.keyId, state: 'expired' },
        ]);
        assert.deepEqual(await f.state(id), { state: 'failed', detail: 'stat:UNDELIV', doneAt: now });
        assert.deepEqual(await f.state(other), { state: 'expired', detail: 'stat:EXPIRED', doneAt: now - 5 });
        assert.deepEqual(await f.messages.applyReceipts([{ carrierMessageId: 'q-1', status: 'delivered' }], now + 10), [
          null,
        ]);
        assert.deepEqual(await f.state(id), { state: 'failed', detail: 'stat:UNDELIV', doneAt: now });
      });
    });

    it('answers each receipt of a batch in its place; the first of two receipts for one part counts', async () => {
      await withStore(async (f) => {
        const [a = 0, b = 0, c = 0] = await f.claimed(3);
        await f.sent(a, 'a');
        await f.sent(b, 'b');
        await f.sent(c, 'c-1', 'c-2');
        const now = f.clock.now();
        const answers = await f.messages.applyReceipts(
          [
            { carrierMessageId: 'early', status: 'delivered', detail: 'first', doneAt: now - 1 },
            { carrierMessageId: 'c-1', status: 'delivered', detail: 'c one' },
            { carrierMessageId: 'a', status: 'delivered', detail: 'a first' },
            { carrierMessageId: 'a', status: 'failed', detail: 'a again' },
            { carrierMessageId: 'b', status: 'failed' },
            { carrierMessageId: 'c-2', status: 'delivered', detail: 'c two' },
            { carrierMessageId: 'early', status: 'failed', detail: 'second', doneAt: now - 2 },
          ],
          now,
        );
        assert.deepEqual(answers.map(plain), [
          'unmatched',
          null,
          { messageId: a, keyId: f.keyId, state: 'delivered' },
          null,
          { messageId: b, keyId: f.keyId, state: 'failed' },
          { messageId: c, keyId: f.keyId, state: 'delivered' },
          'unmatched',
        ]);
        assert.deepEqual(await f.state(a), { state: 'delivered', detail: 'a first', doneAt: now });
        assert.deepEqual(await f.state(b), { state: 'failed', detail: null, doneAt: now });
        assert.deepEqual(await f.state(c), { state: 'delivered', detail: 'c two', doneAt: now });
        // The receipt that came before its submit's answer: kept with its last state and detail, its first time.
        const [early = 0] = await f.claimed(1);
        const transitions = await f.sent(early, 'early');
        assert.deepEqual(transitions.map(plain), [
          { messageId: early, keyId: f.keyId, state: 'sent' },
          { messageId: early, keyId: f.keyId, state: 'failed' },
        ]);
        assert.deepEqual(await f.state(early), { state: 'failed', detail: 'second', doneAt: now - 1 });
        assert.deepEqual(await f.messages.retryUnmatchedReceipts(now), [], 'applied once');
      });
    });

    it('changes nothing when the same receipts come again', async () => {
      await withStore(async (f) => {
        const ids = await f.claimed(3);
        for (const id of ids) await f.sent(id, `r-${id}`);
        const now = f.clock.now();
        const reports: CarrierReceipt[] = ids.map((id) => ({
          carrierMessageId: `r-${id}`,
          status: 'delivered',
          detail: 'ok',
        }));
        assert.equal((await f.messages.applyReceipts(reports, now)).filter((t) => t !== null).length, 3);
        assert.deepEqual(
          await f.messages.applyReceipts(
            reports.map((r) => ({ ...r, status: 'failed', detail: 'late' })),
            now + 100,
          ),
          [null, null, null],
        );
        for (const id of ids) assert.deepEqual(await f.state(id), { state: 'delivered', detail: 'ok', doneAt: now });
      });
    });

    it('applies a kept receipt once its part is known, when the submit answer was written without seeing it', async () => {
      await withStore(async (f) => {
        const [id = 0, other = 0] = await f.claimed(2);
        await f.sent(id, 'late-1', 'late-2');
        await f.sent(other, 'late-3');
        const now = f.clock.now();
        // As if each receipt was kept as unmatched by a transaction that did not see the part yet.
        await f.handle.db
          .insertInto('unmatched_reports')
          .values([
            { carrier_message_id: 'late-1', state: 'delivered', detail: 'd1', done_at: now - 3, received_at: now },
            { carrier_message_id: 'late-2', state: 'delivered', detail: 'd2', done_at: now - 2, received_at: now },
            { carrier_message_id: 'late-3', state: 'expired', detail: null, done_at: now - 1, received_at: now },
            { carrier_message_id: 'still-unknown', state: 'delivered', detail: null, done_at: now, received_at: now },
          ])
          .execute();
        const transitions = await f.messages.retryUnmatchedReceipts(now);
        assert.deepEqual(
          transitions
            .map(plain)
            .sort((x, y) =>
              x !== null && x !== 'unmatched' && y !== null && y !== 'unmatched' ? x.messageId - y.messageId : 0,
            ),
          [
            { messageId: id, keyId: f.keyId, state: 'delivered' },
            { messageId: other, keyId: f.keyId, state: 'expired' },
          ],
        );
        assert.equal((await f.state(id)).state, 'delivered');
        assert.ok([now - 3, now - 2].includes((await f.state(id)).doneAt ?? 0));
        assert.deepEqual(await f.state(other), { state: 'expired', detail: null, doneAt: now - 1 });
        assert.deepEqual(await f.messages.retryUnmatchedReceipts(now), []);
        const left = await f.handle.db.selectFrom('unmatched_reports').select('carrier_message_id').execute();
        assert.deepEqual(
          left.map((r) => r.carrier_message_id),
          ['still-unknown'],
        );
      });
    });

    it('applies a batch larger than one statement takes, in order', async () => {
      await withStore(async (f) => {
        const ids = await f.claimed(1_203);
        await f.messages.markSentMany(
          ids.map((id) => ({ messageId: id, carrier: 'test', carrierMessageIds: [`big-${id}`] })),
          f.clock.now(),
        );
        const now = f.clock.now();
        const statusOf = (i: number): CarrierReceipt['status'] =>
          i % 3 === 0 ? 'delivered' : i % 3 === 1 ? 'failed' : 'expired';
        const reports: CarrierReceipt[] = ids.map((id, i) => ({
          carrierMessageId: `big-${id}`,
          status: statusOf(i),
          detail: `d${i % 7}`,
          doneAt: now - (i % 5),
        }));
        reports.splice(600, 0, { carrierMessageId: 'nobody', status: 'delivered' });
        const answers = await f.messages.applyReceipts(reports, now);
        assert.equal(answers.length, 1_204);
        assert.equal(answers[600], 'unmatched');
        const expected = ids.map((id, i) => ({ messageId: id, keyId: f.keyId, state: statusOf(i) }));
        expected.splice(600, 0, { messageId: 0, keyId: 0, state: 'delivered' });
        answers.forEach((a, i) => {
          if (i !== 600) assert.deepEqual(plain(a), expected[i]);
        });
        for (const i of [0, 1, 2, 599, 600, 1_000, 1_202]) {
          const id = ids[i] ?? 0;
          assert.deepEqual(await f.state(id), { state: statusOf(i), detail: `d${i % 7}`, doneAt: now - (i % 5) });
        }
      });
    });

    it('marks the state changes that wrote a webhook event', async () => {
      await withStore(async (f) => {
        const [id = 0] = await f.claimed(1);
        const [sent] = await f.sent(id, 'h-1');
        assert.equal(sent?.webhookEvent, true);
        const [delivered] = await f.messages.applyReceipts(
          [{ carrierMessageId: 'h-1', status: 'delivered' }],
          f.clock.now(),
        );
        assert.ok(delivered !== undefined && delivered !== null && delivered !== 'unmatched');
        assert.equal(delivered.webhookEvent, true);
      }, hook);
      await withStore(async (f) => {
        const [id = 0] = await f.claimed(1);
        const [sent] = await f.sent(id, 'n-1');
        assert.equal(sent?.state, 'sent');
        assert.notEqual(sent?.webhookEvent, true);
        const [delivered] = await f.messages.applyReceipts(
          [{ carrierMessageId: 'n-1', status: 'delivered' }],
          f.clock.now(),
        );
        assert.ok(delivered !== undefined && delivered !== null && delivered !== 'unmatched');
        assert.notEqual(delivered.webhookEvent, true);
      });
    });
  });
}
