/**
 * The outbox's SMPP rows on both stores (ports/outbox.ts): a receipt is due only once its
 * message is final; a claim holds a row for one holder until its lease runs out (then any
 * holder takes it again), a release gives it back at once, a refusal for now holds it; a row
 * carried out goes; retention removes old rows; an inbound message is owed to an account
 * only when it has an SMPP user made before it came, and once.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { defaultKeySettings, openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { FixedClock } from '../../../src/ports/clock.js';
import { singleSend } from '../../../src/services/single-send.js';
import type { Caller } from '../../../src/services/auth.js';
import { valueOf } from '../../helpers/results.js';

const start = Date.UTC(2026, 2, 15, 9, 0, 0);

for (const dialect of testDialects()) {
  describeOn(dialect, `The outbox: receipts and MO owed over SMPP (${dialect.name})`, () => {
    let app: AppContainer;
    let clock: FixedClock;
    let keyId = 0;
    let accountId = 0;
    let caller: Caller;
    before(async () => {
      clock = new FixedClock(start);
      app = await openAppContainer(await dialect.location(), clock);
      const account = await valueOf(
        app.admin.createAccount({
          name: 'Outbox',
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
          balanceMain: 100,
          balanceInternational: 0,
        }),
      );
      accountId = account.id;
      await valueOf(app.admin.addSenderId(accountId, 'ACME', 'approved'));
      const key = await valueOf(app.admin.createKey(accountId, defaultKeySettings));
      keyId = key.id;
      const auth = await app.services.auth.authenticate(key.api_key, '127.0.0.1');
      assert.ok(auth.ok);
      caller = auth.value;
    });
    after(() => app.close());

    const send = async (to: string): Promise<number> => {
      const sent = await singleSend(app.services.sends, clock, caller, { sentto: to, title: 'ACME', text: 'hi' });
      assert.ok(sent.ok);
      return Number(sent.value.fields.sms_id);
    };
    const lease = (holder: string, ms = 30_000) => ({ holder, now: clock.now(), until: clock.now() + ms });

    it('owes a receipt once final, oldest first; one holder at a time until its lease runs out; done rows go', async () => {
      const user = await valueOf(app.smppUsers.create({ keyId, systemId: 'owed', password: 'pw' }));
      const ids = [await send('905321112201'), await send('905321112202')];
      const createdAt = clock.now();
      const outbox = app.store.outbox;
      await outbox.oweReceipts(
        ids.map((messageId) => ({ messageId, smppUserId: user.id, sourceAddr: 'ACME', createdAt })),
      );
      // Owed twice, owed once.
      await outbox.oweReceipts([{ messageId: ids[0] ?? 0, smppUserId: user.id, sourceAddr: 'ACME', createdAt }]);
      assert.deepEqual(await outbox.claimReceipts(user.id, lease('a'), 10), [], 'not final: not due');
      for (const id of [...ids].reverse()) await app.store.queue.markFailed(id, 'stat:UNDELIV err:001', clock.now());
      assert.equal(await outbox.receiptsDue(user.id), 2);
      const first = await outbox.claimReceipts(user.id, lease('a'), 1);
      assert.deepEqual(
        first.map((r) => [r.messageId, r.state, r.sourceAddr, r.recipient]),
        [[String(ids[0]), 'failed', 'ACME', '905321112201']],
      );
      const second = await outbox.claimReceipts(user.id, lease('b'), 10);
      assert.deepEqual(
        second.map((r) => r.messageId),
        [String(ids[1])],
        'the row held by a is not b’s',
      );
      // a’s session closed: its row is due again at once; b's lease runs out, then anyone takes it.
      await outbox.release(
        first.map((r) => r.id),
        'a',
      );
      await outbox.release(
        second.map((r) => r.id),
        'not-b',
      );
      assert.deepEqual(
        (await outbox.claimReceipts(user.id, lease('c'), 10)).map((r) => r.messageId),
        [String(ids[0])],
      );
      clock.set(start + 30_000);
      const again = await outbox.claimReceipts(user.id, lease('c'), 10);
      assert.deepEqual(
        again.map((r) => r.messageId),
        [String(ids[0]), String(ids[1])],
      );
      // A refusal for now holds a row until then; done rows go.
      await outbox.holdUntil([again[0]?.id ?? 0], 'c', clock.now() + 5000);
      await outbox.done([again[1]?.id ?? 0]);
      clock.set(start + 34_999);
      assert.deepEqual(await outbox.claimReceipts(user.id, lease('d'), 10), []);
      clock.set(start + 35_000);
      assert.equal((await outbox.claimReceipts(user.id, lease('d'), 10)).length, 1);
      assert.equal(await outbox.removeBefore(['smpp.receipt'], createdAt + 1), 1);
      assert.equal(await outbox.receiptsDue(user.id), 0);
    });

    it('owes part receipts: given up at once (rejected), or once the assembled message is final', async () => {
      clock.set(start + 86_400_000);
      const user = await valueOf(app.smppUsers.create({ keyId, systemId: 'parts', password: 'pw' }));
      const messageId = await send('905321112203');
      const part = { smppUserId: user.id, sourceAddr: 'ACME', recipient: '905321112203' };
      await app.store.outbox.owePartReceipts(
        [
          { ...part, partId: 'p-given-up', messageId: null, submittedAt: clock.now() - 2 },
          { ...part, partId: 'p-assembled', messageId, submittedAt: clock.now() - 1 },
        ],
        clock.now(),
      );
      assert.equal(await app.store.outbox.receiptsDue(user.id), 1);
      await app.store.queue.markFailed(messageId, 'stat:UNDELIV err:034', clock.now());
      const due = await app.store.outbox.claimReceipts(user.id, lease('a'), 10);
      assert.deepEqual(
        due.map((r) => [r.messageId, r.state, r.recipient, r.sourceAddr]),
        [
          ['p-given-up', 'rejected', '905321112203', 'ACME'],
          ['p-assembled', 'failed', '905321112203', 'ACME'],
        ],
      );
      assert.equal(await app.store.outbox.removeBefore(['smpp.part-receipt'], clock.now() + 1), 2);
    });

    it('owes an inbound message to an account with an SMPP user made before it, once', async () => {
      const other = await valueOf(
        app.admin.createAccount({
          name: 'No SMPP',
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
          balanceMain: 0,
          balanceInternational: 0,
        }),
      );
      const at = clock.now() + 10;
      for (const [id, owner, text] of [
        [900_001, accountId, 'a'],
        [900_002, accountId, 'b'],
        [900_003, other.id, 'c'],
      ] as const) {
        await app.store.inbound.insert({
          id,
          accountId: owner,
          from: '905321112233',
          to: '4444',
          text,
          receivedAt: at,
        });
        await app.store.outbox.oweMo({ id, accountId: owner, receivedAt: at });
      }
      await app.store.outbox.oweMo({ id: 900_001, accountId, receivedAt: at });
      const due = await app.store.outbox.claimMo(accountId, lease('a'), 10);
      assert.deepEqual(
        due.map((m) => m.message.text),
        ['a', 'b'],
      );
      assert.deepEqual(await app.store.outbox.claimMo(other.id, lease('a'), 10), []);
      await app.store.outbox.done(due.map((m) => m.id));
      clock.set(clock.now() + 60_000);
      assert.deepEqual(await app.store.outbox.claimMo(accountId, lease('a'), 10), []);
    });
  });
}
