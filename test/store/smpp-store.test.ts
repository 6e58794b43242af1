/**
 * The SMPP users and the receipts owed to them (issue 35), on both stores: users by
 * system_id with their key's hash, disabling, and receipts owed only once their message is
 * final, oldest first, until acknowledged, and removed past their retention.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { defaultKeySettings, openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { FixedClock } from '../../src/ports/clock.js';
import { singleSend } from '../../src/services/single-send.js';
import { hashApiKey } from '../../src/services/key-secrets.js';
import { verifyPassword } from '../../src/services/passwords.js';
import type { PartAdded } from '../../src/ports/smpp-store.js';

const start = Date.UTC(2026, 2, 15, 9, 0, 0);

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP users and owed receipts (${dialect.name})`, () => {
    let app: AppContainer;
    let clock: FixedClock;
    let keyId = 0;
    let accountId = 0;
    let apiKey = '';
    before(async () => {
      clock = new FixedClock(start);
      app = await openAppContainer(await dialect.location(), clock);
      const account = await app.admin.createAccount({
        name: 'Smpp',
        perMinuteLimit: 0,
        otpBrand: '',
        ipAllow: [],
        globalSending: false,
        balanceMain: 100,
        balanceInternational: 0,
      });
      accountId = account.id;
      await app.admin.addSenderId(accountId, 'ACME', 'approved');
      const key = await app.admin.createKey(accountId, defaultKeySettings);
      keyId = key.id;
      apiKey = key.api_key;
    });
    after(() => app.close());

    it('creates a user with its password hashed, finds it by system_id with its key hash, refuses a second', async () => {
      const view = await app.smppUsers.create({ keyId, systemId: 'acme', password: 'secret1', maxBinds: 2 });
      assert.equal(view.system_id, 'acme');
      assert.equal(view.account_id, accountId);
      assert.equal(view.max_binds, 2);
      assert.equal(view.window, 10);
      assert.ok(!JSON.stringify(view).includes('secret1'));
      const found = await app.store.smpp.credentials('acme');
      assert.ok(found);
      assert.equal(found.keyHash, hashApiKey(apiKey));
      assert.notEqual(found.passwordHash, 'secret1');
      assert.equal(await verifyPassword('secret1', found.passwordHash), true);
      await assert.rejects(app.smppUsers.create({ keyId, systemId: 'acme', password: 'x' }), /exists already/);
      await assert.rejects(app.smppUsers.create({ keyId, systemId: 'a'.repeat(16), password: 'x' }), /system-id/);
      await assert.rejects(app.smppUsers.create({ keyId, systemId: 'b', password: '123456789' }), /password/);
      await assert.rejects(app.smppUsers.create({ keyId: 9999, systemId: 'c', password: 'x' }), /no key/);
      assert.equal(await app.store.smpp.credentials('nobody'), null);
      assert.deepEqual(
        (await app.smppUsers.list(accountId)).smpp_users.map((u) => u.system_id),
        ['acme'],
      );
      const disabled = await app.smppUsers.disable(view.id);
      assert.equal(disabled.disabled, true);
      assert.notEqual((await app.store.smpp.credentials('acme'))?.user.disabledAt, null);
    });

    it('owes a receipt once the message is final, oldest first, until acknowledged; retention removes old rows', async () => {
      const user = await app.smppUsers.create({ keyId, systemId: 'owed', password: 'pw' });
      const auth = await app.services.auth.authenticate(apiKey, '127.0.0.1');
      assert.ok(auth.ok);
      const ids: number[] = [];
      for (const to of ['905321112201', '905321112202']) {
        const sent = await singleSend(app.services.sends, clock, auth.value, { sentto: to, title: 'ACME', text: 'hi' });
        assert.ok(sent.ok);
        const id = Number(sent.value.fields.sms_id);
        ids.push(id);
        await app.store.smpp.owe({ messageId: id, smppUserId: user.id, sourceAddr: 'ACME' }, clock.now());
      }
      assert.deepEqual(await app.store.smpp.owed(user.id, 10), []);
      for (const id of [...ids].reverse()) await app.store.queue.markFailed(id, 'stat:UNDELIV err:001', clock.now());
      const owed = await app.store.smpp.owed(user.id, 10);
      assert.deepEqual(
        owed.map((r) => [r.messageId, r.state, r.sourceAddr, r.recipient]),
        ids.map((id, i) => [id, 'failed', 'ACME', ['905321112201', '905321112202'][i]]),
      );
      assert.equal((await app.store.smpp.owed(user.id, 1)).length, 1);
      await app.store.smpp.acknowledged([ids[0] ?? 0], clock.now());
      assert.deepEqual(
        (await app.store.smpp.owed(user.id, 10)).map((r) => r.messageId),
        [ids[1]],
      );
      clock.set(start + 3 * 86_400_000);
      assert.equal(await app.store.smpp.removeBefore(start + 1), 2);
      assert.deepEqual(await app.store.smpp.owed(user.id, 10), []);
    });

    it('owes part receipts: given up at once (rejected), or once the assembled message is final; until acknowledged', async () => {
      clock.set(start + 4 * 86_400_000);
      const user = await app.smppUsers.create({ keyId, systemId: 'parts', password: 'pw' });
      const auth = await app.services.auth.authenticate(apiKey, '127.0.0.1');
      assert.ok(auth.ok);
      const sent = await singleSend(app.services.sends, clock, auth.value, {
        sentto: '905321112203',
        title: 'ACME',
        text: 'long',
      });
      assert.ok(sent.ok);
      const messageId = Number(sent.value.fields.sms_id);
      const part = { smppUserId: user.id, sourceAddr: 'ACME', recipient: '905321112203' };
      await app.store.smpp.owePartReceipts(
        [
          { ...part, partId: 'p-given-up', messageId: null, submittedAt: clock.now() - 2 },
          { ...part, partId: 'p-assembled', messageId, submittedAt: clock.now() - 1 },
        ],
        clock.now(),
      );
      assert.deepEqual(
        (await app.store.smpp.owedParts(user.id, 10)).map((r) => [r.partId, r.state]),
        [['p-given-up', 'rejected']],
      );
      assert.equal(await app.store.smpp.owedCount(user.id), 1);
      await app.store.queue.markFailed(messageId, 'stat:UNDELIV err:034', clock.now());
      const owed = await app.store.smpp.owedParts(user.id, 10);
      assert.deepEqual(
        owed.map((r) => [r.partId, r.state, r.recipient, r.sourceAddr]),
        [
          ['p-given-up', 'rejected', '905321112203', 'ACME'],
          ['p-assembled', 'failed', '905321112203', 'ACME'],
        ],
      );
      // The message's own receipt and its two parts' receipts: the backlog the console shows.
      await app.store.smpp.owe({ messageId, smppUserId: user.id, sourceAddr: 'ACME' }, clock.now());
      assert.equal(await app.store.smpp.owedCount(user.id), 3);
      await app.store.smpp.acknowledged([messageId], clock.now());
      await app.store.smpp.partsAcknowledged(['p-given-up'], clock.now());
      assert.equal(await app.store.smpp.owedCount(user.id), 1);
      assert.deepEqual(
        (await app.store.smpp.owedParts(user.id, 10)).map((r) => r.partId),
        ['p-assembled'],
      );
      // Acknowledged or not, the three rows go past the retention limit.
      assert.equal(await app.store.smpp.removeBefore(clock.now() + 1), 3);
      assert.deepEqual(await app.store.smpp.owedParts(user.id, 10), []);
    });

    it('keeps the parts of a concatenated message until the last: ids of their own, the same for a part sent again, the user\u2019s bound, put back, given up', async () => {
      const part = (seq: number, over: Record<string, unknown> = {}) => ({
        smppUserId: 77,
        sourceAddr: 'ACME',
        destination: '905321112299',
        dataCoding: 8,
        reference: 0x1234,
        total: 3,
        seq,
        payload: Buffer.from([0, seq]),
        turkish: false,
        receipt: seq === 1,
        receivedAt: 1000 + seq,
        // A part's schedule_delivery_time is kept with it (migration 0039).
        scheduledAt: seq === 2 ? 1_800_000_000_123 : null,
        ...over,
      });
      const smpp = app.store.smpp;
      const idOf = (added: PartAdded): string => (added.kind === 'pending' ? added.partId : `(${added.kind})`);
      const id2 = idOf(await smpp.addAssemblyPart(part(2), 2));
      assert.match(id2, /^\d+$/);
      // Sent again: the first id.
      assert.equal(idOf(await smpp.addAssemblyPart(part(2), 2)), id2);
      const other = idOf(await smpp.addAssemblyPart(part(1, { reference: 1 }), 2));
      assert.match(other, /^\d+$/);
      assert.notEqual(other, id2);
      // Two unfinished messages of the user: a third is refused, another user's is not.
      assert.deepEqual(await smpp.addAssemblyPart(part(1, { reference: 2 }), 2), { kind: 'full' });
      assert.equal((await smpp.addAssemblyPart(part(1, { smppUserId: 78 }), 2)).kind, 'pending');
      const id3 = idOf(await smpp.addAssemblyPart(part(3), 2));
      const done = await smpp.addAssemblyPart(part(1), 2);
      assert.equal(done.kind, 'complete');
      if (done.kind !== 'complete') return;
      const id1 = done.parts[0]?.partId ?? '';
      assert.deepEqual(
        done.parts.map((p) => [
          p.seq,
          p.partId,
          p.payload.toString('hex'),
          p.receipt,
          p.reference,
          p.dataCoding,
          p.scheduledAt,
        ]),
        [
          [1, id1, '0001', true, 0x1234, 8, null],
          [2, id2, '0002', false, 0x1234, 8, 1_800_000_000_123],
          [3, id3, '0003', false, 0x1234, 8, null],
        ],
      );
      assert.equal(new Set([id1, id2, id3, other]).size, 4);
      // Taken out: the same reference starts a new message.
      const renewed = idOf(await smpp.addAssemblyPart(part(1), 5));
      // Put back without its last part (refused for now): refused while a message of the same key is open...
      assert.equal(await smpp.restoreAssembly(done.parts.slice(1)), false);
      // Every message whose first part came before 1002: the other reference, the other user's, the new one.
      const expired = await smpp.expiredAssemblies(1002);
      assert.deepEqual(
        expired.map((parts) => parts.map((p) => `${p.smppUserId}:${p.reference}:${p.seq}`).join()).sort(),
        ['77:1:1', '77:4660:1', '78:4660:1'],
      );
      assert.ok(expired.flat().some((p) => p.partId === renewed));
      // ...accepted once it is not, and the part sent again completes it.
      assert.equal(await smpp.restoreAssembly(done.parts.slice(0, 2)), true);
      const again = await smpp.addAssemblyPart(part(3), 5);
      assert.equal(again.kind, 'complete');
      if (again.kind === 'complete')
        assert.deepEqual(again.parts.map((p) => [p.partId, p.scheduledAt]).slice(0, 2), [
          [id1, null],
          [id2, 1_800_000_000_123],
        ]);
      // Given up by the time of its first part, once only.
      await smpp.addAssemblyPart(part(2, { reference: 9, receivedAt: 5000 }), 5);
      assert.deepEqual(await smpp.expiredAssemblies(5000), []);
      assert.equal((await smpp.expiredAssemblies(5001)).flat().length, 1);
      assert.deepEqual(await smpp.expiredAssemblies(5001), []);
    });

    it('owes an account\u2019s inbound messages since a time, oldest first, until acknowledged', async () => {
      const at = clock.now();
      await app.store.inbound.insert({
        id: 900_001,
        accountId,
        from: '905321112233',
        to: '4444',
        text: 'old',
        receivedAt: at - 10,
      });
      await app.store.inbound.insert({
        id: 900_002,
        accountId,
        from: '905321112233',
        to: '4444',
        text: 'a',
        receivedAt: at,
      });
      await app.store.inbound.insert({
        id: 900_003,
        accountId,
        from: '905321112233',
        to: '4444',
        text: 'b',
        receivedAt: at + 1,
      });
      await app.store.inbound.insert({
        id: 900_004,
        accountId: null,
        from: '905321112233',
        to: '5555',
        text: 'c',
        receivedAt: at + 2,
      });
      assert.deepEqual(
        (await app.store.smpp.owedMo(accountId, at, 0, 10)).map((m) => m.text),
        ['a', 'b'],
      );
      await app.store.smpp.moAcknowledged([{ inboundId: 900_002, accountId }], at + 5);
      assert.deepEqual(
        (await app.store.smpp.owedMo(accountId, at, 0, 10)).map((m) => m.id),
        [900_003],
      );
      assert.equal((await app.store.smpp.owedMo(accountId, at, 0, 1)).length, 1);
      assert.deepEqual(await app.store.smpp.owedMo(accountId, at, 900_004, 10), []);
    });
    it('binds: concurrent claims never pass max binds; a release or a lease run out frees a place', async () => {
      const user = await app.smppUsers.create({ keyId, systemId: 'binds', password: 'pw', maxBinds: 2 });
      const now = clock.now();
      const bind = (i: number) => ({
        sessionId: `s${i}`,
        smppUserId: user.id,
        accountId,
        systemId: 'binds',
        process: `p${i % 3}`,
        peer: '127.0.0.1',
        bindType: 'transceiver' as const,
        boundAt: now + i,
      });
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => app.store.smpp.claimBind(bind(i), 2, now, now + 1000)),
      );
      assert.equal(claims.filter(Boolean).length, 2, JSON.stringify(claims));
      const live = await app.store.smpp.liveBinds(now);
      assert.equal(live.length, 2);
      const [held, other] = live.map((b) => b.sessionId);
      assert.ok(held && other);
      await app.store.smpp.releaseBinds([held]);
      assert.equal(await app.store.smpp.claimBind(bind(20), 2, now, now + 1000), true);
      assert.equal(await app.store.smpp.claimBind(bind(21), 2, now, now + 1000), false);
      // The process of `other` renews; the one of s20 does not: at the lease's end only s20 is gone.
      await app.store.smpp.renewBinds([other], now + 500, now + 5000);
      assert.deepEqual(
        (await app.store.smpp.liveBinds(now + 1000)).map((b) => b.sessionId),
        [other],
      );
      assert.equal(await app.store.smpp.claimBind(bind(22), 2, now + 1000, now + 5000), true);
      assert.equal(await app.store.smpp.claimBind(bind(23), 2, now + 1000, now + 5000), false);
    });
  });
}
