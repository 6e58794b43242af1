/**
 * Resellers (issue 46, item 1): the provider makes an account a reseller and creates
 * customers under it; one level only; the provider's listing names each customer's
 * reseller. Through the admin commands' functions, in process, on every dialect.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { openAppContainer } from '../../src/main.js';
import type { AppContainer } from '../../src/main.js';
import type { AdminCode, AdminResult } from '../../src/services/admin-result.js';
import type { AccountInput } from '../../src/ports/accounts.js';
import { valueOf } from '../helpers/results.js';

const input = (name: string, extra: Partial<AccountInput> = {}): AccountInput => ({
  name,
  balanceMain: 0,
  balanceInternational: 0,
  perMinuteLimit: 0,
  otpBrand: '',
  ipAllow: [],
  globalSending: false,
  ...extra,
});

async function refused(
  work: Promise<AdminResult<unknown>>,
  pattern: RegExp,
  code: AdminCode = 'ADM-REFUSED',
): Promise<void> {
  const result = await work;
  assert.ok(!result.ok && result.code === code && pattern.test(result.message), JSON.stringify(result));
}

for (const dialect of testDialects()) {
  describeOn(dialect, `account hierarchy (${dialect.name})`, () => {
    let runtime: AppContainer;
    before(async () => {
      runtime = await openAppContainer(await dialect.location());
    });
    after(() => runtime.close());

    it('a customer is created only under a reseller, and shows its parent', async () => {
      const plain = await valueOf(runtime.admin.createAccount(input('Plain')));
      assert.equal(plain.reseller, false);
      assert.equal(plain.parent_id, null);
      await refused(runtime.admin.createAccount(input('Orphan', { parentId: plain.id })), /not a reseller/);
      await refused(
        runtime.admin.createAccount(input('Nowhere', { parentId: 999_999 })),
        /no account/,
        'ADM-NOT-FOUND',
      );
      const made = await valueOf(runtime.admin.updateAccount(plain.id, { reseller: true }, {}));
      assert.equal(made.reseller, true);
      const customer = await valueOf(
        runtime.admin.createAccount(input('Customer', { parentId: plain.id, balanceMain: 0 })),
      );
      assert.equal(customer.parent_id, plain.id);
      assert.equal(customer.reseller, false);
    });

    it('one level: a customer cannot become a reseller, and a reseller with customers stays one', async () => {
      const reseller = await valueOf(runtime.admin.createAccount(input('Level')));
      await valueOf(runtime.admin.updateAccount(reseller.id, { reseller: true }, {}));
      const customer = await valueOf(runtime.admin.createAccount(input('Below', { parentId: reseller.id })));
      await refused(runtime.admin.updateAccount(customer.id, { reseller: true }, {}), /one level/);
      await refused(runtime.admin.updateAccount(reseller.id, { reseller: false }, {}), /still owns 1 customer/);
      assert.equal((await valueOf(runtime.accountDirectory.show(reseller.id))).reseller, true);
      // Nothing changed by the refusals.
      assert.equal((await valueOf(runtime.accountDirectory.show(customer.id))).reseller, false);
      const lone = await valueOf(runtime.admin.createAccount(input('Lone')));
      await valueOf(runtime.admin.updateAccount(lone.id, { reseller: true }, {}));
      assert.equal((await valueOf(runtime.admin.updateAccount(lone.id, { reseller: false }, {}))).reseller, false);
    });

    it('the provider sees every account with its reseller named, and a reseller’s customers alone', async () => {
      const reseller = await valueOf(runtime.admin.createAccount(input('Bayi A.Ş.')));
      await valueOf(runtime.admin.updateAccount(reseller.id, { reseller: true }, {}));
      const first = await valueOf(runtime.admin.createAccount(input('Müşteri 1', { parentId: reseller.id })));
      const second = await valueOf(runtime.admin.createAccount(input('Müşteri 2', { parentId: reseller.id })));
      const shown = await valueOf(runtime.accountDirectory.show(first.id));
      assert.equal(shown.reseller_name, 'Bayi A.Ş.');
      assert.equal(shown.parent_id, reseller.id);
      const resellerShown = await valueOf(runtime.accountDirectory.show(reseller.id));
      assert.equal(resellerShown.customers, 2);
      assert.equal(resellerShown.reseller_name, null);
      const own = await valueOf(runtime.accountDirectory.list({ parentId: reseller.id }));
      assert.deepEqual(
        own.accounts.map((a) => [a.id, a.reseller_name]),
        [
          [first.id, 'Bayi A.Ş.'],
          [second.id, 'Bayi A.Ş.'],
        ],
      );
      // Paged: every account once, in id order, each customer with its reseller named.
      const seen: number[] = [];
      let after: number | undefined;
      for (;;) {
        const page = await valueOf(
          runtime.accountDirectory.list({ limit: 2, ...(after !== undefined ? { after } : {}) }),
        );
        for (const a of page.accounts) {
          seen.push(a.id);
          if (a.parent_id !== null) assert.notEqual(a.reseller_name, null, `account ${a.id}`);
        }
        if (page.next_after === null) break;
        after = page.next_after;
      }
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
      );
      assert.ok(seen.includes(second.id) && seen.includes(reseller.id));
    });
  });
}
