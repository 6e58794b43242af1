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
  });
}
