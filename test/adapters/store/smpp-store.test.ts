/**
 * The SMPP users (issue 35), on both stores: users by system_id with their key's hash,
 * disabling, the parts of concatenated submits, the binds of every process. (What is owed
 * to them is the outbox's: outbox-store.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { defaultKeySettings, openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { FixedClock } from '../../../src/ports/clock.js';
import { hashApiKey } from '../../../src/services/key-secrets.js';
import { verifyPassword } from '../../../src/services/passwords.js';
import type { PartAdded } from '../../../src/ports/smpp-parts.js';
import { failureOf, valueOf } from '../../helpers/results.js';

const start = Date.UTC(2026, 2, 15, 9, 0, 0);

for (const dialect of testDialects()) {
  describeOn(dialect, `SMPP users, parts and binds (${dialect.name})`, () => {
    let app: AppContainer;
    let clock: FixedClock;
    let keyId = 0;
    let accountId = 0;
    let apiKey = '';
    before(async () => {
      clock = new FixedClock(start);
      app = await openAppContainer(await dialect.location(), clock);
      const account = await valueOf(
        app.admin.createAccount({
          name: 'Smpp',
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
      apiKey = key.api_key;
    });
    after(() => app.close());

    it('creates a user with its password hashed, finds it by system_id with its key hash, refuses a second', async () => {
      const view = await valueOf(app.smppUsers.create({ keyId, systemId: 'acme', password: 'secret1', maxBinds: 2 }));
      assert.equal(view.system_id, 'acme');
      assert.equal(view.account_id, accountId);
      assert.equal(view.max_binds, 2);
      assert.equal(view.window, 10);
      assert.ok(!JSON.stringify(view).includes('secret1'));
      const found = await app.store.smppUsers.credentials('acme');
      assert.ok(found);
      assert.equal(found.keyHash, hashApiKey(apiKey));
      assert.notEqual(found.passwordHash, 'secret1');
      assert.equal(await verifyPassword('secret1', found.passwordHash), true);
      assert.match(
        (await failureOf(app.smppUsers.create({ keyId, systemId: 'acme', password: 'x' }))).message,
        /exists already/,
      );
      assert.match(
        (await failureOf(app.smppUsers.create({ keyId, systemId: 'a'.repeat(16), password: 'x' }))).message,
        /system-id/,
      );
      assert.match(
        (await failureOf(app.smppUsers.create({ keyId, systemId: 'b', password: '123456789' }))).message,
        /password/,
      );
      assert.match(
        (await failureOf(app.smppUsers.create({ keyId: 9999, systemId: 'c', password: 'x' }))).message,
        /no key/,
      );
      assert.equal(await app.store.smppUsers.credentials('nobody'), null);
      assert.deepEqual(
        (await app.smppUsers.list(accountId)).smpp_users.map((u) => u.system_id),
        ['acme'],
      );
      const disabled = await valueOf(app.smppUsers.disable(view.id));
      assert.equal(disabled.disabled, true);
      assert.notEqual((await app.store.smppUsers.credentials('acme'))?.user.disabledAt, null);
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
      const smpp = app.store.smppParts;
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

    it('binds: concurrent claims never pass max binds; a release or a lease run out frees a place', async () => {
      const user = await valueOf(app.smppUsers.create({ keyId, systemId: 'binds', password: 'pw', maxBinds: 2 }));
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
        Array.from({ length: 8 }, (_, i) => app.store.smppBinds.take(bind(i), 2, now, now + 1000)),
      );
      assert.equal(claims.filter(Boolean).length, 2, JSON.stringify(claims));
      const live = await app.store.smppBinds.live(now);
      assert.equal(live.length, 2);
      const [held, other] = live.map((b) => b.sessionId);
      assert.ok(held && other);
      await app.store.smppBinds.release([held]);
      assert.equal(await app.store.smppBinds.take(bind(20), 2, now, now + 1000), true);
      assert.equal(await app.store.smppBinds.take(bind(21), 2, now, now + 1000), false);
      // The process of `other` renews; the one of s20 does not: at the lease's end only s20 is gone.
      await app.store.smppBinds.renew([other], now + 500, now + 5000);
      assert.deepEqual(
        (await app.store.smppBinds.live(now + 1000)).map((b) => b.sessionId),
        [other],
      );
      assert.equal(await app.store.smppBinds.take(bind(22), 2, now + 1000, now + 5000), true);
      assert.equal(await app.store.smppBinds.take(bind(23), 2, now + 1000, now + 5000), false);
    });
  });
}
