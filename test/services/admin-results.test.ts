/**
 * The admin idiom (issue 43, item 4): the provider's services return their failures, with a
 * code, and write nothing for them. The failures here are not reached through the CLI or the
 * panel's tests (the page or the option parser checks first), so they are checked in process.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import { decided, notFound, refused } from '../../src/services/admin-result.js';
import { monthBounds } from '../../src/services/account-statements.js';
import { SenderIdReview } from '../../src/services/sender-id-review.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { systemClock } from '../../src/ports/clock.js';
import { valueOf } from '../helpers/results.js';

it('a month not YYYY-MM is refused, the others bound', () => {
  assert.deepEqual(monthBounds('2026-13'), refused('--month is YYYY-MM'));
  assert.deepEqual(monthBounds('June'), refused('--month is YYYY-MM'));
  const june = monthBounds('2026-06');
  assert.ok(june.ok);
  assert.deepEqual([june.value.from, june.value.to], ['2026-06-01', '2026-06-30']);
});

for (const dialect of testDialects()) {
  describeOn(dialect, `admin results (${dialect.name})`, () => {
    let runtime: AppContainer;
    before(async () => {
      runtime = await openAppContainer(await dialect.location());
    });
    after(() => runtime.close());

    const account = () =>
      valueOf(
        runtime.admin.createAccount({
          name: 'Results',
          balanceMain: 10,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );

    it('a console review of a request decided meanwhile is ADM-DECIDED; none at all ADM-NOT-FOUND', async () => {
      const { id: accountId } = await account();
      const asked = await valueOf(runtime.admin.senderIds.add(accountId, 'DECIDED', 'pending'));
      const console = new SenderIdReview(runtime.store, systemClock, true);
      assert.deepEqual(await console.reject(asked.id, '  '), refused('a rejection needs a reason'));
      assert.equal((await console.approve(asked.id)).ok, true);
      assert.deepEqual(await console.approve(asked.id), decided(`sender ID ${asked.id} was already reviewed`));
      assert.deepEqual(await console.approve(999_999), notFound('no sender ID with id 999999'));
    });

    it('refuses a debit without a reason, a rotation of a paused key, and takes nothing', async () => {
      const { id } = await account();
      assert.deepEqual(await runtime.admin.debit(id, 5, false, ' '), refused('a debit needs a reason'));
      assert.deepEqual(
        await runtime.admin.debit(id, 50, false, 'too much'),
        refused('the main balance is less than 50; nothing was debited'),
      );
      assert.equal((await valueOf(runtime.admin.account(id))).balanceMain, 10);
      const key = await valueOf(runtime.admin.createKey(id, defaultKeySettings));
      await valueOf(runtime.admin.changeKeyState(key.id, 'pause'));
      assert.deepEqual(
        await runtime.admin.rotateKey(key.id, false),
        refused('only an Active key can be rotated (the key is Paused)'),
      );
      assert.deepEqual(await runtime.admin.rotateKey(999_999, false), notFound('no key with id 999999'));
    });

    it('a reseller with no brand yet is refused its brand; an account that is none, found not', async () => {
      const { id } = await account();
      assert.deepEqual(await runtime.brands.command(999_999, {}), notFound('no account with id 999999'));
      await valueOf(runtime.admin.updateAccount(id, { reseller: true }, {}));
      assert.deepEqual(await runtime.brands.command(id, {}), refused(`account ${id} has no brand yet (give --name)`));
    });
  });
}
