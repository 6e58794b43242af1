/**
 * The reseller side of the panel on both stores: only a reseller account's users reach it;
 * every page and action on another reseller's customer (or on the provider's own account)
 * is not found and changes nothing; every action is in the audit log under the user; a
 * suspended reseller changes nothing; a customer's sender-ID request waits for its reseller
 * before the provider's queue; the statement pages show the figures of the CLI's statement.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { AccountStatements } from '../../src/services/account-statements.js';
import { valueOf } from '../helpers/results.js';

const base = {
  balanceInternational: 0,
  perMinuteLimit: 0,
  otpBrand: '',
  ipAllow: [],
  globalSending: false,
};

for (const dialect of testDialects()) {
  describeOn(dialect, `panel: the reseller side (${dialect.name})`, () => {
    let h: PanelHarness;
    let r: PanelBrowser;
    let resellerId = 0;
    let mine = 0;
    let foreign = 0;
    let plain = 0;
    let email = '';

    const account = async (id: number) => {
      const a = await h.runtime.store.accounts.getAccount(id);
      assert.ok(a);
      return a;
    };

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      const admin = h.runtime.admin;
      const user = await h.account('Reseller Side');
      resellerId = user.accountId;
      email = user.email;
      await valueOf(admin.updateAccount(resellerId, { reseller: true }, {}));
      const other = await h.account('Other Side');
      await valueOf(admin.updateAccount(other.accountId, { reseller: true }, {}));
      mine = (await valueOf(admin.createAccount({ ...base, name: 'Mine', balanceMain: 0, parentId: resellerId }))).id;
      foreign = (
        await valueOf(admin.createAccount({ ...base, name: 'Foreign', balanceMain: 50, parentId: other.accountId }))
      ).id;
      plain = (await h.account('Plain Customer')).accountId;
      await h.runtime.store.senderIds.addSenderId(foreign, 'FOREIGN', 'awaiting-reseller', h.clock.now());
      r = h.browser();
      await r.signIn(user.email, user.password);
    });
    after(async () => {
      await h.close();
    });

    it("answers every page and action of another reseller's customer, or of a non-customer, not found", async () => {
      const foreignSender = (await h.runtime.store.senderIds.listOf(foreign))[0]?.id ?? 0;
      await r.get('/panel/reseller/customers');
      for (const id of [foreign, plain, 999_999]) {
        assert.equal((await r.get(`/panel/reseller/customers/${id}`)).status, 404, `page of ${id}`);
        for (const action of ['fund', 'fund/review', 'suspend', 'reactivate', 'refund-policy']) {
          const answer = await r.post(`/panel/reseller/customers/${id}/${action}`, { amount: '10', refund: '1' });
          assert.equal(answer.status, 404, `${action} of ${id}`);
        }
      }
      for (const verb of ['approve', 'reject'])
        assert.equal(
          (await r.post(`/panel/reseller/sender-ids/${foreignSender}/${verb}`, { reason: 'no' })).status,
          404,
        );
      const after = await account(foreign);
      assert.equal(after.balanceMain, 50);
      assert.equal(after.status, 'Active');
      assert.equal((await h.runtime.store.senderIds.getSenderId(foreignSender))?.status, 'awaiting-reseller');
      const page = await r.get('/panel/reseller/customers');
      assert.match(page.body, />Mine</);
      assert.doesNotMatch(page.body, /Foreign|Plain Customer/);
      assert.equal((await r.get('/panel/reseller/sender-ids')).body.includes('FOREIGN'), false);
    });

    it('is not found for a user of an account that is no reseller, and for a provider user', async () => {
      const customer = await h.account('Not Reseller');
      const c = h.browser();
      await c.signIn(customer.email, customer.password);
      for (const path of [
        '/panel/reseller/customers',
        `/panel/reseller/customers/${mine}`,
        '/panel/reseller/statement',
      ])
        assert.equal((await c.get(path)).status, 404, path);
      assert.doesNotMatch((await c.get('/panel/keys')).body, /reseller\/customers/);
      assert.match((await r.get('/panel/keys')).body, /href="\/panel\/reseller\/customers"/);
    });

    it('links the brand page in the reseller side\u2019s menu, in English and Turkish, and nowhere else', async () => {
      const entry = (label: string) =>
        new RegExp(`<nav class="main-nav"[^]*<a href="/panel/reseller/brand"[^>]*>${label}</a>[^]*</nav>`);
      assert.match((await r.get('/panel/keys')).body, entry('Your brand'));
      assert.match((await r.get('/panel/reseller/brand')).body, /href="\/panel\/reseller\/brand" aria-current="page"/);
      const tr = h.browser();
      await tr.get('/panel/lang/tr');
      await tr.signIn(email, 'password-Reseller Side');
      assert.match((await tr.get('/panel/keys')).body, entry('Markanız'));
      const customer = h.browser();
      const plainUser = await h.account('No Brand Menu');
      await customer.signIn(plainUser.email, plainUser.password);
      assert.doesNotMatch((await customer.get('/panel/keys')).body, /reseller\/brand/);
    });

    it('funds, takes back, suspends, reactivates and sets the refund policy, each with its audit row', async () => {
      await r.get(`/panel/reseller/customers/${mine}`);
      const review = await r.post(`/panel/reseller/customers/${mine}/fund/review`, {
        direction: 'give',
        amount: '120',
      });
      assert.equal(review.status, 200);
      assert.equal((await account(mine)).balanceMain, 0, 'the review moves nothing');
      const moves: [Record<string, string>, number][] = [
        [{ direction: 'give', amount: '120' }, 303],
        [{ direction: 'take', amount: '20' }, 303],
        [{ direction: 'take', amount: '101' }, 400],
        [{ direction: 'give', amount: '0' }, 400],
        [{ direction: 'give', amount: '99999999999999' }, 400],
      ];
      for (const [form, status] of moves)
        assert.equal((await r.post(`/panel/reseller/customers/${mine}/fund`, form)).status, status, form.amount);
      assert.equal((await account(mine)).balanceMain, 100);
      assert.equal((await account(resellerId)).balanceMain, 900);
      await r.post(`/panel/reseller/customers/${mine}/suspend`);
      assert.equal((await account(mine)).status, 'Suspended');
      await r.post(`/panel/reseller/customers/${mine}/reactivate`);
      await r.post(`/panel/reseller/customers/${mine}/refund-policy`, { refund: '1' });
      assert.equal((await account(mine)).refundUndelivered, true);
      const rows = await h.runtime.store.audit.search({ accountId: mine, actor: email, limit: 20 });
      assert.deepEqual(rows.map((e) => e.action).reverse(), [
        'subaccount.fund',
        'subaccount.take-back',
        'subaccount.suspend',
        'subaccount.reactivate',
        'subaccount.refund-policy',
      ]);
    });

    it("passes a customer's sender-ID request on to the provider's queue only after the reseller's approval", async () => {
      const customerUser = await valueOf(
        h.users.create({
          accountId: mine,
          email: 'mine@example.com',
          password: 'mine-pass-1',
        }),
      );
      assert.ok(customerUser.id > 0);
      const c = h.browser();
      await c.signIn('mine@example.com', 'mine-pass-1');
      await c.get('/panel/sender-ids');
      await c.post('/panel/sender-ids', { title: 'MINEID' });
      await c.post('/panel/sender-ids', { title: 'MINENO' });
      const [yes, no] = await h.runtime.store.senderIds.listOf(mine);
      assert.equal(yes?.status, 'awaiting-reseller');
      assert.equal((await h.runtime.store.console.pendingSenderIds(undefined, 50)).length, 0);
      await r.get('/panel/reseller/sender-ids');
      assert.equal((await r.post(`/panel/reseller/sender-ids/${no?.id}/reject`, { reason: '' })).status, 400);
      await r.post(`/panel/reseller/sender-ids/${yes?.id}/approve`);
      await r.post(`/panel/reseller/sender-ids/${no?.id}/reject`, { reason: 'Not your brand' });
      // Decided: a second decision is not the reseller's to make.
      assert.equal((await r.post(`/panel/reseller/sender-ids/${yes?.id}/reject`, { reason: 'late' })).status, 404);
      const pending = await h.runtime.store.console.pendingSenderIds(undefined, 50);
      assert.deepEqual(
        pending.map((s) => s.title),
        ['MINEID'],
      );
      assert.match((await c.get('/panel/sender-ids')).body, /Not your brand/);
      const actions = (
        await h.runtime.store.audit.search({ accountId: mine, action: 'subaccount.sender-id', limit: 5 })
      )
        .map((e) => e.action)
        .reverse();
      assert.deepEqual(actions, ['subaccount.sender-id.approve', 'subaccount.sender-id.reject']);
    });

    it('shows statements with the figures of the CLI statement, and CSVs with every cell guarded', async () => {
      const month = new Date(h.clock.now() + 3 * 3600_000).toISOString().slice(0, 7);
      const cli = await valueOf(new AccountStatements(h.runtime.store).statement(resellerId, month, true));
      assert.ok('customers' in cli);
      const csv = await r.get(`/panel/reseller/statement/csv?month=${month}`);
      assert.equal(csv.status, 200);
      assert.match(String(csv.headers['content-type']), /text\/csv/);
      const lines = csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split(/\r?\n/);
      assert.equal(lines.length, 1 + 2 * (1 + cli.customers.length));
      const mineMain = lines.find((l) => l.startsWith(`${mine},Mine,${resellerId},${month},main,`))?.split(',') ?? [];
      const credit = cli.customers.find((s) => s.account_id === mine)?.credit.main;
      assert.deepEqual(mineMain.slice(-8).map(Number), [
        credit?.opening,
        credit?.added,
        credit?.spent,
        credit?.refunded,
        credit?.moved_in,
        credit?.moved_out,
        credit?.taken,
        credit?.closing,
      ]);
      assert.equal(Number(mineMain.at(-1)), 100);
      const page = await r.get(`/panel/reseller/statement?month=${month}`);
      assert.match(page.body, /data-account="\d+" data-balance="main"/);

      // The customer's own statement, and the provider's of the reseller with its customers.
      const c = h.browser();
      await c.signIn('mine@example.com', 'mine-pass-1');
      const own = await c.get(`/panel/statement/csv?month=${month}`);
      assert.equal(
        own.body
          .replace(/^\uFEFF/, '')
          .trim()
          .split(/\r?\n/).length,
        3,
      );
      assert.equal((await c.get('/panel/statement')).status, 200);
      await valueOf(h.users.create({ accountId: null, email: 'staff@example.com', password: 'staff-pass-1' }));
      const p = h.browser();
      await p.signIn('staff@example.com', 'staff-pass-1');
      assert.match((await p.get(`/panel/provider/accounts/${resellerId}`)).body, /\/statement"/);
      const provider = await p.get(`/panel/provider/accounts/${resellerId}/statement/csv?month=${month}`);
      assert.equal(provider.body, csv.body);
    });

    it('changes nothing while the reseller itself is suspended', async () => {
      await valueOf(h.runtime.admin.updateAccount(resellerId, { status: 'Suspended' }, {}));
      await r.get(`/panel/reseller/customers/${mine}`);
      assert.equal((await r.post(`/panel/reseller/customers/${mine}/fund`, { amount: '5' })).status, 403);
      assert.equal((await r.post(`/panel/reseller/customers/${mine}/suspend`)).status, 403);
      assert.equal((await account(mine)).balanceMain, 100);
      assert.equal((await account(mine)).status, 'Active');
    });
  });
}
