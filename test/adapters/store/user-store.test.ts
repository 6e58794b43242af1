import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { defaultKeySettings } from '../../../src/services/admin.js';
import { valueOf } from '../../helpers/results.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `panel user store (${dialect.name})`, () => {
    let runtime: AppContainer;
    let accountId = 0;
    before(async () => {
      runtime = await openAppContainer(await dialect.location());
      accountId = (
        await valueOf(
          runtime.admin.createAccount({
            name: 'Users',
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        )
      ).id;
    });
    after(() => runtime.close());
    const users = () => runtime.store.users;

    it('keeps users by lower-cased email, one user per email, and lists an account\u2019s', async () => {
      const made = await users().createUser({ accountId, email: 'Ann@Example.com', passwordHash: 'h1' }, 1000);
      assert.equal(made?.email, 'ann@example.com');
      assert.equal(made?.passwordChangedAt, 1000);
      assert.equal(await users().createUser({ accountId, email: 'ANN@example.com', passwordHash: null }, 1001), null);
      const provider = await users().createUser(
        { accountId: null, email: 'ops@example.com', passwordHash: null },
        1002,
      );
      assert.equal(provider?.accountId, null);
      assert.equal((await users().findUserByEmail('ann@EXAMPLE.com'))?.id, made?.id);
      assert.deepEqual(
        (await users().usersOf(accountId)).map((u) => u.email),
        ['ann@example.com'],
      );
      await users().setPasswordHash(made?.id ?? 0, null, 2000);
      assert.equal((await users().getUser(made?.id ?? 0))?.passwordHash, null);
      assert.equal((await users().setUserStatus(made?.id ?? 0, 'disabled'))?.status, 'disabled');
    });

    it('keeps sessions by hash, touches and deletes them, one or all of a user\u2019s', async () => {
      const user = await users().createUser({ accountId, email: 'sess@example.com', passwordHash: 'h' }, 1);
      const userId = user?.id ?? 0;
      await users().createSession({ tokenHash: 'a'.repeat(64), userId, createdAt: 10, lastSeenAt: 10 });
      await users().createSession({ tokenHash: 'b'.repeat(64), userId, createdAt: 11, lastSeenAt: 11 });
      await users().touchSession('a'.repeat(64), 99);
      assert.deepEqual(await users().findSession('a'.repeat(64)), {
        tokenHash: 'a'.repeat(64),
        userId,
        createdAt: 10,
        lastSeenAt: 99,
      });
      await users().deleteSession('a'.repeat(64));
      assert.equal(await users().findSession('a'.repeat(64)), null);
      assert.equal(await users().deleteSessionsOf(userId), 1);
      assert.equal(await users().findSession('b'.repeat(64)), null);
    });

    it('reserves sign-in attempts up to a limit in a window that starts again when it is over', async () => {
      assert.equal(await users().signInFailures('ip:1', 1000, 100), 0);
      assert.equal(await users().reserveSignInAttempt('ip:1', 1000, 100, 2), 1);
      assert.equal(await users().reserveSignInAttempt('ip:1', 1050, 100, 2), 2);
      assert.equal(await users().reserveSignInAttempt('ip:1', 1060, 100, 2), null, 'the limit is reached');
      assert.equal(await users().signInFailures('ip:1', 1099, 100), 2, 'a refused attempt counts nothing');
      await users().releaseSignInAttempt('ip:1');
      assert.equal(await users().signInFailures('ip:1', 1099, 100), 1);
      assert.equal(await users().signInFailures('ip:1', 1100, 100), 0);
      assert.equal(await users().reserveSignInAttempt('ip:1', 1100, 100, 2), 1, 'a new window');
      await users().clearSignInFailures('ip:1');
      assert.equal(await users().signInFailures('ip:1', 1101, 100), 0);
    });

    it('lets at most the limit of 40 concurrent reservations through', async () => {
      const results = await Promise.all(
        Array.from({ length: 40 }, () => users().reserveSignInAttempt('user:burst', 5000, 1000, 5)),
      );
      assert.equal(results.filter((r) => r !== null).length, 5);
      assert.deepEqual(results.filter((r) => r !== null).sort(), [1, 2, 3, 4, 5]);
    });

    it('uses a password token once, before it expires', async () => {
      const user = await users().createUser({ accountId, email: 'link@example.com', passwordHash: null }, 1);
      await users().createPasswordToken('t1', user?.id ?? 0, 500);
      await users().createPasswordToken('t2', user?.id ?? 0, 500);
      assert.equal(await users().peekPasswordToken('t1', 100), user?.id);
      assert.equal(await users().usePasswordToken('t1', 100), user?.id);
      assert.equal(await users().usePasswordToken('t1', 101), null);
      assert.equal(await users().usePasswordToken('t2', 500), null, 'expired');
    });

    it('reviews sender IDs: a rejection keeps its reason, an approval clears it', async () => {
      const s = await runtime.store.senderIds.addSenderId(accountId, 'REVIEW', 'pending', 1);
      const rejected = await users().reviewSenderId(s?.id ?? 0, 'rejected', 'no', 2);
      assert.equal(rejected?.status, 'rejected');
      assert.deepEqual([...(await users().rejectionReasons(accountId))], [[s?.id, 'no']]);
      await users().reviewSenderId(s?.id ?? 0, 'approved', null, 3);
      assert.equal(await runtime.store.senderIds.hasApprovedSender(accountId, 'REVIEW'), true);
      assert.equal((await users().rejectionReasons(accountId)).size, 0);
      assert.equal(await users().reviewSenderId(999_999, 'approved', null, 4), null);
    });

    it('lists an account\u2019s keys and keeps their last use, only ever moving it forward', async () => {
      const k1 = await valueOf(runtime.admin.createKey(accountId, defaultKeySettings));
      const k2 = await valueOf(runtime.admin.createKey(accountId, defaultKeySettings));
      assert.deepEqual(await users().keyIdsOf(accountId), [k1.id, k2.id]);
      await users().markKeysUsed([{ keyId: k1.id, at: 500 }]);
      await users().markKeysUsed([
        { keyId: k1.id, at: 400 },
        { keyId: k2.id, at: 700 },
      ]);
      assert.deepEqual([...(await users().lastUsed([k1.id, k2.id]))].sort(), [
        [k1.id, 500],
        [k2.id, 700],
      ]);
      assert.equal((await users().lastUsed([])).size, 0);
    });
  });
}
