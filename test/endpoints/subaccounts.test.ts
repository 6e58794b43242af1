/**
 * A reseller's API (issue 46, item 3; ../shared/interfaces.md, "Resellers"): the
 * manage_subaccounts permission, and /subaccounts/create, list, fund, status and usage,
 * through HTTP on every dialect. A reseller's key reaches its own customers only: any
 * other account id (another reseller's customer, the provider's account, none) is the same
 * refusal. Every change is in the audit log under the key.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { harnessFor } from '../helpers/harness.js';
import type { Answer, Provisioned } from '../helpers/harness.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from '../helpers/results.js';

function refused(answer: Answer, code: string, status: number): void {
  assert.equal(answer.status, status, answer.raw);
  assert.equal(answer.body.result, false, answer.raw);
  assert.equal(answer.body.result_code, code, answer.raw);
  assert.equal(typeof answer.body.result_message, 'string');
}

function succeeded(answer: Answer): Record<string, unknown> {
  assert.equal(answer.status, 200, answer.raw);
  assert.equal(answer.body.result, true, answer.raw);
  assert.equal(answer.body.result_code, 'TS-1064', answer.raw);
  return answer.body;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `/subaccounts/... (${dialect.name})`, () => {
    const h = harnessFor(dialect);
    let reseller: Provisioned;
    let other: Provisioned;
    let customerId = 0;
    const call = (p: Provisioned, path: string, fields: Record<string, unknown> = {}) =>
      h.post(path, { api_key: p.apiKey, ...fields });
    const makeReseller = async (name: string, balanceMain = 1000): Promise<Provisioned> => {
      const p = await h.provision({ account: { name, balanceMain, balanceInternational: 50 } });
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { reseller: true }, {}));
      return p;
    };

    before(async () => {
      reseller = await makeReseller('Bayi Bir');
      other = await makeReseller('Bayi İki');
    });

    describe('the permission', () => {
      it('/auth/post/check/ reports manage_subaccounts as the key has it', async () => {
        const on = await call(reseller, '/auth/post/check/');
        const permissions = (on.body.key_details as { permissions: Record<string, boolean> }).permissions;
        assert.equal(permissions.manage_subaccounts, true);
        const off = await h.provision({
          key: { permissions: { ...defaultKeySettings.permissions, manage_subaccounts: false } },
        });
        const offPermissions = (
          (await call(off, '/auth/post/check/')).body.key_details as { permissions: Record<string, boolean> }
        ).permissions;
        assert.equal(offPermissions.manage_subaccounts, false);
      });

      it('a key without it, or an account that is no reseller, is refused with TS-1065', async () => {
        const plain = await h.provision({ account: { name: 'Not a reseller' } });
        refused(await call(plain, '/subaccounts/list'), 'TS-1065', 403);
        refused(await call(plain, '/subaccounts/create', { name: 'X' }), 'TS-1065', 403);
        const key = await valueOf(
          h.runtime.admin.createKey(reseller.accountId, {
            ...defaultKeySettings,
            permissions: { ...defaultKeySettings.permissions, manage_subaccounts: false },
          }),
        );
        const lacking = { ...reseller, apiKey: key.api_key, keyId: key.id };
        refused(await call(lacking, '/subaccounts/list'), 'TS-1065', 403);
      });
    });

    describe('create and list', () => {
      it('creates a customer under the reseller, listed with its balances', async () => {
        const made = succeeded(await call(reseller, '/subaccounts/create', { name: '  Kuzey Market ' }));
        customerId = Number(made.account_id);
        assert.deepEqual(
          { name: made.name, status: made.status, main: made.balance_main, intl: made.balance_international },
          { name: 'Kuzey Market', status: 'Active', main: 0, intl: 0 },
        );
        const shown = await valueOf(h.runtime.accountDirectory.show(customerId));
        assert.equal(shown.parent_id, reseller.accountId);
        assert.equal(shown.reseller_name, 'Bayi Bir');
        const listed = succeeded(await call(reseller, '/subaccounts/list'));
        assert.deepEqual(listed.accounts, [
          { account_id: customerId, name: 'Kuzey Market', status: 'Active', balance_main: 0, balance_international: 0 },
        ]);
        assert.equal(listed.next_after, null);
        assert.deepEqual(succeeded(await call(other, '/subaccounts/list')).accounts, []);
      });

      it('with email, a panel user with a set-password token; a bad email creates nothing', async () => {
        const made = succeeded(
          await call(reseller, '/subaccounts/create', { name: 'Güney Ltd', email: 'owner@guney.example' }),
        );
        assert.equal(typeof made.user_id, 'number');
        assert.match(String(made.set_password_token), /^\S{20,}$/);
        const users = await valueOf(h.runtime.panelUsers.list(Number(made.account_id)));
        assert.deepEqual(
          users.users.map((u) => u.email),
          ['owner@guney.example'],
        );
        const before = (succeeded(await call(reseller, '/subaccounts/list')).accounts as unknown[]).length;
        refused(await call(reseller, '/subaccounts/create', { name: 'Bad', email: 'not-an-email' }), 'TS-1033', 400);
        refused(
          await call(reseller, '/subaccounts/create', { name: 'Twice', email: 'owner@guney.example' }),
          'TS-1033',
          400,
        );
        refused(await call(reseller, '/subaccounts/create', { name: '   ' }), 'TS-1033', 400);
        assert.equal((succeeded(await call(reseller, '/subaccounts/list')).accounts as unknown[]).length, before);
      });
    });

    describe('fund and take back', () => {
      it('moves credit both ways, main and international apart, never below zero', async () => {
        const given = succeeded(await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: 100 }));
        assert.deepEqual(given.reseller, {
          account_id: reseller.accountId,
          balance_main: 900,
          balance_international: 50,
        });
        assert.deepEqual(given.customer, { account_id: customerId, balance_main: 100, balance_international: 0 });
        const intl = succeeded(
          await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: 20, international: 1 }),
        );
        assert.deepEqual(intl.customer, { account_id: customerId, balance_main: 100, balance_international: 20 });
        const back = succeeded(await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: -30 }));
        assert.deepEqual(back.reseller, {
          account_id: reseller.accountId,
          balance_main: 930,
          balance_international: 30,
        });
        assert.deepEqual(back.customer, { account_id: customerId, balance_main: 70, balance_international: 20 });
        // More than the customer holds, or than the reseller holds: refused, nothing moved.
        refused(await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: -71 }), 'TS-1027', 403);
        refused(
          await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: 31, international: 1 }),
          'TS-1027',
          403,
        );
        refused(await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: 0 }), 'TS-1033', 400);
        refused(await call(reseller, '/subaccounts/fund', { account_id: customerId, amount: 1.5 }), 'TS-1033', 400);
        const customer = await valueOf(h.runtime.admin.account(customerId));
        assert.deepEqual([customer.balanceMain, customer.balanceInternational], [70, 20]);
        // Each move is two ledger rows naming each other.
        const ledger = await h.runtime.store.console.ledger(customerId, undefined, 10);
        assert.deepEqual(ledger.map((r) => [r.bucket, r.delta, r.balanceAfter, r.reason, r.reference]).reverse(), [
          ['main', 100, 100, 'funded by reseller', `account:${reseller.accountId}`],
          ['international', 20, 20, 'funded by reseller', `account:${reseller.accountId}`],
          ['main', -30, 70, 'taken back by reseller', `account:${reseller.accountId}`],
        ]);
        const resellerLedger = await h.runtime.store.console.ledger(reseller.accountId, undefined, 3);
        assert.deepEqual(resellerLedger.map((r) => [r.delta, r.reason, r.reference]).reverse(), [
          [-100, 'funding of customer', `account:${customerId}`],
          [-20, 'funding of customer', `account:${customerId}`],
          [30, 'taken back from customer', `account:${customerId}`],
        ]);
      });
    });

    describe('isolation', () => {
      it("another reseller's customer, the provider's account, a reseller, or no account: one refusal", async () => {
        const plain = await h.provision({ account: { name: 'Provider customer' } });
        for (const id of [customerId, plain.accountId, reseller.accountId, other.accountId, 9_999_999]) {
          refused(await call(other, '/subaccounts/fund', { account_id: id, amount: 1 }), 'TS-1170', 403);
          refused(await call(other, '/subaccounts/fund', { account_id: id, amount: -1 }), 'TS-1170', 403);
          refused(await call(other, '/subaccounts/status', { account_id: id, status: 'Suspended' }), 'TS-1170', 403);
          refused(
            await call(other, '/subaccounts/usage', { account_id: id, from: '2026-03-01', to: '2026-03-31' }),
            'TS-1170',
            403,
          );
        }
        const customer = await valueOf(h.runtime.admin.account(customerId));
        assert.deepEqual([customer.status, customer.balanceMain], ['Active', 70]);
        assert.equal((await valueOf(h.runtime.admin.account(other.accountId))).balanceMain, 1000);
      });
    });

    describe('status and usage', () => {
      it('suspends a customer (its keys get TS-1030) and reactivates it', async () => {
        const key = await valueOf(h.runtime.admin.createKey(customerId, defaultKeySettings));
        await h.runtime.store.senderIds.addSenderId(customerId, 'KUZEY', 'approved', h.clock.now());
        const suspended = succeeded(
          await call(reseller, '/subaccounts/status', { account_id: customerId, status: 'Suspended' }),
        );
        assert.equal(suspended.status, 'Suspended');
        refused(await h.post('/balance/', { api_key: key.api_key }), 'TS-1030', 403);
        refused(
          await call(reseller, '/subaccounts/status', { account_id: customerId, status: 'Gone' }),
          'TS-1033',
          400,
        );
        succeeded(await call(reseller, '/subaccounts/status', { account_id: customerId, status: 'Active' }));
        for (const sentto of ['905321110001', '905321110000'])
          assert.equal(
            (await h.post('/sms/send', { api_key: key.api_key, sentto, title: 'KUZEY', text: 'Merhaba', sms_lang: 0 }))
              .body.result_code,
            'TS-1024',
          );
        while ((await h.runtime.store.derived.deriveRollups(100, h.clock.now())).derived > 0);

        const usage = succeeded(
          await call(reseller, '/subaccounts/usage', { account_id: customerId, from: '2026-03-01', to: '2026-03-31' }),
        );
        assert.deepEqual(usage.counts, { messages: 2, sms: 2, delivered: 0, failed: 0, pending: 2 });
        assert.deepEqual(usage.credit_added, { main: 100, international: 20 });
        assert.deepEqual(usage.credit_spent, { main: 2, international: 0 });
        assert.deepEqual(usage.credit_taken_back, { main: 30, international: 0 });
        assert.deepEqual(usage.credit_refunded, { main: 0, international: 0 });
        const before = succeeded(
          await call(reseller, '/subaccounts/usage', { account_id: customerId, from: '2026-02-01', to: '2026-03-14' }),
        );
        assert.deepEqual(before.counts, { messages: 0, sms: 0, delivered: 0, failed: 0, pending: 0 });
        assert.deepEqual(before.credit_added, { main: 0, international: 0 });
        for (const [from, to] of [
          ['2026-03-31', '2026-03-01'],
          ['2026-02-30', '2026-03-01'],
          ['2024-01-01', '2026-03-01'],
        ])
          refused(await call(reseller, '/subaccounts/usage', { account_id: customerId, from, to }), 'TS-1033', 400);
      });

      it('every reseller action is in the audit log under its key', async () => {
        const page = await h.runtime.audit.search({ accountId: customerId });
        const actions = page.entries.map((e) => [e.action, e.actor]).reverse();
        const actor = `key:${reseller.keyId}`;
        assert.deepEqual(actions, [
          ['subaccount.create', actor],
          ['subaccount.fund', actor],
          ['subaccount.fund', actor],
          ['subaccount.take-back', actor],
          ['subaccount.suspend', actor],
          ['subaccount.reactivate', actor],
        ]);
        const fund = page.entries.find((e) => e.action === 'subaccount.take-back');
        assert.deepEqual(JSON.parse(fund?.detail ?? '{}'), {
          amount: 30,
          bucket: 'main',
          reseller_id: reseller.accountId,
        });
      });
    });
  });
}
