import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { AuditLog } from '../../src/services/audit-log.js';
import { valueOf } from '../helpers/results.js';

const xss = '<script>alert(1)</script>';
const providerEmail = 'staff@provider.example';
const providerPassword = 'provider-password-1';

for (const dialect of testDialects()) {
  describeOn(dialect, `provider console: accounts, sender ID requests, audit log (${dialect.name})`, () => {
    let h: PanelHarness;
    let p: PanelBrowser;
    let c: PanelBrowser;
    let customer: Awaited<ReturnType<PanelHarness['account']>>;
    let apiKey = '';

    const balance = async (key: string) => {
      const answer = await h.app.inject({ method: 'POST', url: '/balance/', payload: { api_key: key } });
      return { status: answer.statusCode, body: answer.json<Record<string, unknown>>() };
    };
    const allRows = () => h.runtime.store.audit.search({ limit: 10_000 });

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      customer = await h.account('Console Customer');
      apiKey = (await valueOf(h.runtime.admin.createKey(customer.accountId, defaultKeySettings))).api_key;
      await valueOf(h.users.create({ accountId: null, email: providerEmail, password: providerPassword }));
      p = h.browser('198.51.100.7');
      await p.get('/panel/sign-in');
      assert.equal((await p.post('/panel/sign-in', { email: providerEmail, password: providerPassword })).status, 303);
      c = h.browser('203.0.113.5');
      await c.signIn(customer.email, customer.password);
    });
    after(() => h.close());

    it('opens the console home for a provider user, with its menu; a customer user gets 404 on every console page and action, changing nothing', async () => {
      const home = await p.get('/panel/');
      assert.equal(home.location, '/panel/provider');
      const page = await p.get('/panel/provider');
      assert.equal(page.status, 200);
      assert.match(page.body, /<h1>Provider console<\/h1>/);
      for (const [path, name] of [
        ['/panel/provider/accounts', 'Accounts'],
        ['/panel/provider/sender-ids', 'Sender ID requests'],
        ['/panel/provider/audit', 'Audit log'],
      ]) {
        assert.match(page.body, new RegExp(`<nav class="main-nav"[^]*<a href="${path}">${name}</a>`));
        assert.equal((await p.get(path ?? '')).status, 200);
        assert.equal((await c.get(path ?? '')).status, 404);
      }
      assert.equal((await c.get('/panel/provider')).status, 404);
      assert.equal((await c.get(`/panel/provider/accounts/${customer.accountId}`)).status, 404);
      await c.get('/panel/keys');
      const before = await h.runtime.store.accounts.getAccount(customer.accountId);
      for (const [path, form] of [
        ['/panel/provider/accounts', { name: 'Made by a customer' }],
        [`/panel/provider/accounts/${customer.accountId}/suspend`, {}],
        [`/panel/provider/accounts/${customer.accountId}/topup`, { amount: '500' }],
        [`/panel/provider/accounts/${customer.accountId}/debit`, { amount: '5', reason: 'x' }],
      ] as const) {
        assert.equal((await c.post(path, form)).status, 404, path);
      }
      assert.deepEqual(await h.runtime.store.accounts.getAccount(customer.accountId), before);
      assert.equal((await h.runtime.store.console.accounts({ text: 'Made by a customer', limit: 5 })).length, 0);
      // And a provider user never reaches a customer's pages.
      assert.equal((await p.get('/panel/keys')).status, 404);
    });

    it('refuses every console change without the session\u2019s token (403), changing nothing', async () => {
      await p.get('/panel/provider/accounts');
      const before = await h.runtime.store.accounts.getAccount(customer.accountId);
      const rows = (await allRows()).length;
      for (const token of [null, 'not-the-token-at-all-not-the-token']) {
        assert.equal((await p.post(`/panel/provider/accounts/${customer.accountId}/suspend`, {}, token)).status, 403);
        assert.equal(
          (await p.post(`/panel/provider/accounts/${customer.accountId}/topup`, { amount: '5' }, token)).status,
          403,
        );
        assert.equal((await p.post('/panel/provider/accounts', { name: 'No token' }, token)).status, 403);
      }
      assert.deepEqual(await h.runtime.store.accounts.getAccount(customer.accountId), before);
      assert.equal((await allRows()).length, rows);
    });

    it('creates an account (its name shown escaped), and finds accounts by name, number and user email, paged by key', async () => {
      await p.get('/panel/provider/accounts');
      const bad = await p.post('/panel/provider/accounts', { name: '  ', balance: 'ten' });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /id="account-name-error">Error: Give the account a name/);
      assert.match(bad.body, /id="account-balance-error">Error: Use a whole number, 0 or more\./);
      const made = await p.post('/panel/provider/accounts', { name: `Evil ${xss} & Co`, balance: '25' });
      assert.equal(made.status, 303);
      const id = Number(/\/accounts\/(\d+)\?done=created$/.exec(made.location ?? '')?.[1]);
      const account = await h.runtime.store.accounts.getAccount(id);
      assert.equal(account?.name, `Evil ${xss} & Co`);
      assert.equal(account?.balanceMain, 25);
      const page = await p.get(made.location ?? '');
      assert.match(page.body, /The account was created\./);
      assert.doesNotMatch(page.body, /<script>alert/);
      assert.match(page.body, /Evil &lt;script>alert\(1\)&lt;\/script> &amp; Co/);
      const list = await p.get('/panel/provider/accounts?q=evil');
      assert.doesNotMatch(list.body, /<script>alert/);
      assert.match(list.body, new RegExp(`<a href="/panel/provider/accounts/${id}">Evil &lt;script>`));
      assert.doesNotMatch(list.body, /Console Customer/);
      assert.match((await p.get(`/panel/provider/accounts?q=%23${customer.accountId}`)).body, /Console Customer/);
      assert.match((await p.get('/panel/provider/accounts?q=CONSOLE-CUSTOMER%40example')).body, /Console Customer/);

      for (let i = 0; i < 52; i += 1)
        await valueOf(
          h.runtime.admin.createAccount({
            name: `Paging ${String(i).padStart(2, '0')}`,
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        );
      const first = await p.get('/panel/provider/accounts?q=paging');
      assert.equal((first.body.match(/>Paging \d\d</g) ?? []).length, 50);
      const next = /<a href="(\/panel\/provider\/accounts\?q=paging&amp;after=\d+)" rel="next">Next page<\/a>/
        .exec(first.body)?.[1]
        ?.replace(/&amp;/g, '&');
      assert.ok(next, 'a Next page link');
      const second = await p.get(next);
      assert.deepEqual(second.body.match(/>Paging \d\d</g), ['>Paging 50<', '>Paging 51<']);
      assert.doesNotMatch(second.body, /Next page/);
      assert.match(second.body, /First page/);
    });

    it('suspends an account: its API calls are refused (TS-1030) until it is reactivated', async () => {
      assert.equal((await balance(apiKey)).body.result_code, 'TS-1040');
      await p.get(`/panel/provider/accounts/${customer.accountId}`);
      const suspended = await p.post(`/panel/provider/accounts/${customer.accountId}/suspend`);
      assert.equal(suspended.status, 303);
      assert.match(
        (await p.get(suspended.location ?? '')).body,
        /The account is suspended: its API calls are refused\.[^]*<dd class="state">Suspended<\/dd>[^]*Reactivate account/,
      );
      const refused = await balance(apiKey);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.result_code, 'TS-1030');
      const back = await p.post(`/panel/provider/accounts/${customer.accountId}/reactivate`);
      assert.equal(back.status, 303);
      assert.equal((await balance(apiKey)).body.result_code, 'TS-1040');
      const rows = await h.runtime.store.audit.search({ accountId: customer.accountId, action: 'account.', limit: 10 });
      assert.deepEqual(
        rows.slice(0, 2).map((r) => [r.action, r.actor, r.address, r.objectType, r.objectId]),
        [
          ['account.reactivate', providerEmail, '198.51.100.7', 'account', String(customer.accountId)],
          ['account.suspend', providerEmail, '198.51.100.7', 'account', String(customer.accountId)],
        ],
      );
      assert.equal((await p.post('/panel/provider/accounts/999999/suspend')).status, 404);
    });

    it('tops up (a whole number above zero) and debits with a reason (never below zero), both in the ledger', async () => {
      const url = `/panel/provider/accounts/${customer.accountId}`;
      await p.get(url);
      for (const amount of ['0', '-5', 'ten', '1.5', '']) {
        const bad = await p.post(`${url}/topup`, { amount });
        assert.equal(bad.status, 400, amount);
        assert.match(bad.body, /id="topup-amount-error">Error: Use a whole number above zero\./);
      }
      assert.equal((await h.runtime.store.accounts.getAccount(customer.accountId))?.balanceMain, 1000);
      assert.equal((await p.post(`${url}/topup`, { amount: '500' })).status, 303);
      assert.equal((await p.post(`${url}/topup`, { amount: '7', international: '1' })).status, 303);
      let account = await h.runtime.store.accounts.getAccount(customer.accountId);
      assert.equal(account?.balanceMain, 1500);
      assert.equal(account?.balanceInternational, 7);
      const noReason = await p.post(`${url}/debit`, { amount: '5', reason: ' ' });
      assert.equal(noReason.status, 400);
      assert.match(noReason.body, /id="debit-reason-error">Error: Say why the credit is taken back\./);
      const tooMuch = await p.post(`${url}/debit`, { amount: '999999', reason: 'too much' });
      assert.equal(tooMuch.status, 400);
      assert.match(
        tooMuch.body,
        /id="debit-amount-error">Error: The balance is less than this amount: nothing was debited\./,
      );
      assert.equal((await p.post(`${url}/debit`, { amount: '200', reason: `Refund ${xss}` })).status, 303);
      account = await h.runtime.store.accounts.getAccount(customer.accountId);
      assert.equal(account?.balanceMain, 1300);
      const page = await p.get(url);
      assert.doesNotMatch(page.body, /<script>alert/);
      assert.match(
        page.body,
        /<td>Main<\/td><td>-200<\/td><td>1300<\/td><td>debit: Refund &lt;script>alert\(1\)&lt;\/script><\/td>/,
      );
      assert.match(page.body, /<td>International<\/td><td>\+7<\/td><td>7<\/td><td>top-up<\/td>/);
      assert.match(page.body, /<td>Main<\/td><td>\+500<\/td><td>1500<\/td><td>top-up<\/td>/);
      const [debit] = await h.runtime.store.audit.search({
        accountId: customer.accountId,
        action: 'account.debit',
        limit: 1,
      });
      assert.deepEqual(JSON.parse(debit?.detail ?? '{}'), { amount: 200, bucket: 'main', reason: `Refund ${xss}` });
      assert.equal((await p.post('/panel/provider/accounts/999999/topup', { amount: '5' })).status, 404);
    });

    it('approves a sender ID a customer requested (the account can send from it), and rejects another with a reason the customer sees, escaped', async () => {
      await c.get('/panel/sender-ids');
      assert.equal((await c.post('/panel/sender-ids', { title: 'NEWBRAND' })).status, 303);
      assert.equal((await c.post('/panel/sender-ids', { title: 'OTHER' })).status, 303);
      const [brand, other] = await h.runtime.store.senderIds.listOf(customer.accountId);
      const queue = await p.get('/panel/provider/sender-ids');
      assert.match(
        queue.body,
        new RegExp(
          `<th scope="row">NEWBRAND</th><td><a href="/panel/provider/accounts/${customer.accountId}">Console Customer</a>`,
        ),
      );
      assert.match(queue.body, /<button type="submit">Approve NEWBRAND<\/button>/);
      assert.match(queue.body, /<label for="reason-\d+">Reason for rejecting OTHER<\/label>/);
      // A customer cannot decide.
      await c.get('/panel/keys');
      assert.equal((await c.post(`/panel/provider/sender-ids/${brand?.id}/approve`)).status, 404);
      assert.equal(await h.runtime.store.senderIds.hasApprovedSender(customer.accountId, 'NEWBRAND'), false);

      const approved = await p.post(`/panel/provider/sender-ids/${brand?.id}/approve`);
      assert.equal(approved.status, 303);
      assert.match(
        (await p.get(approved.location ?? '')).body,
        /NEWBRAND is approved: the account can send from it now\./,
      );
      assert.equal(await h.runtime.store.senderIds.hasApprovedSender(customer.accountId, 'NEWBRAND'), true);
      const sent = await h.app.inject({
        method: 'POST',
        url: '/sms/send',
        payload: { api_key: apiKey, title: 'NEWBRAND', sentto: '05321234567', text: 'Merhaba' },
      });
      assert.equal(sent.json<{ result_code: string }>().result_code, 'TS-1024', sent.body);

      const noReason = await p.post(`/panel/provider/sender-ids/${other?.id}/reject`, { reason: '' });
      assert.equal(noReason.status, 400);
      assert.match(
        noReason.body,
        new RegExp(`id="reason-${other?.id}-error">Error: Give a reason: the customer sees it\\.`),
      );
      assert.equal(
        (await p.post(`/panel/provider/sender-ids/${other?.id}/reject`, { reason: `Not yours ${xss}` })).status,
        303,
      );
      const seen = await c.get('/panel/sender-ids');
      assert.doesNotMatch(seen.body, /<script>alert/);
      assert.match(
        seen.body,
        /<th scope="row">OTHER<\/th><td class="state">Rejected<\/td><td>[^<]+<\/td><td>Not yours &lt;script>alert\(1\)&lt;\/script><\/td>/,
      );
      assert.doesNotMatch((await p.get('/panel/provider/sender-ids')).body, /NEWBRAND|OTHER/);
      // A decision already made is not turned over from the console (a stale page, two staff at once).
      const stale = await p.post(`/panel/provider/sender-ids/${other?.id}/approve`);
      assert.equal(stale.location, '/panel/provider/sender-ids?done=already');
      assert.match((await p.get(stale.location ?? '')).body, /That request was already decided/);
      assert.equal(await h.runtime.store.senderIds.hasApprovedSender(customer.accountId, 'OTHER'), false);
      assert.equal(
        (await p.post(`/panel/provider/sender-ids/${brand?.id}/reject`, { reason: 'changed my mind' })).location,
        '/panel/provider/sender-ids?done=already',
      );
      assert.equal(await h.runtime.store.senderIds.hasApprovedSender(customer.accountId, 'NEWBRAND'), true);
      assert.equal((await p.post('/panel/provider/sender-ids/999999/approve')).status, 404);
      assert.equal((await p.post('/panel/provider/sender-ids/999999/reject', { reason: 'x' })).status, 404);
      const rows = await h.runtime.store.audit.search({ action: 'sender-id.', limit: 10 });
      assert.deepEqual(rows.map((r) => [r.action, r.actor, r.accountId]).slice(0, 4), [
        ['sender-id.reject', providerEmail, customer.accountId],
        ['sender-id.approve', providerEmail, customer.accountId],
        ['sender-id.request', customer.email, customer.accountId],
        ['sender-id.request', customer.email, customer.accountId],
      ]);
    });

    it('records the customer\u2019s changes (keys, webhook, password, groups, blocking list, sends) and never a secret in any row', async () => {
      const webhookSecret = 'whsec-very-secret-value-123';
      const newPassword = 'new-password-for-audit-1';
      await c.get('/panel/keys/new');
      const created = await c.post('/panel/keys', { permissions: ['check_balance'] });
      const shownKey = /hb_(live|test)_[A-Za-z0-9_-]+/.exec(created.body)?.[0] ?? '';
      assert.notEqual(shownKey, '');
      const keyId = Number(/\/panel\/keys\/(\d+)"/.exec(created.body)?.[1]);
      await c.get(`/panel/keys/${keyId}`);
      assert.equal(
        (
          await c.post(`/panel/keys/${keyId}/webhook`, {
            webhook_url: 'https://hooks.example/in',
            webhook_secret: webhookSecret,
            webhook_attempts: '5',
          })
        ).status,
        303,
      );
      assert.equal((await c.post(`/panel/keys/${keyId}/pause`)).status, 303);
      assert.equal((await c.post(`/panel/keys/${keyId}/reactivate`)).status, 303);
      const rotated = await c.post(`/panel/keys/${keyId}/rotate`, { keep_old: '1' });
      const rotatedKey = /hb_(live|test)_[A-Za-z0-9_-]+/.exec(rotated.body)?.[0] ?? '';
      assert.notEqual(rotatedKey, '');
      await c.get('/panel/groups');
      assert.equal((await c.post('/panel/groups', { name: 'Audit group' })).status, 303);
      await c.get('/panel/blocklist');
      assert.equal((await c.post('/panel/blocklist', { numbers: '05329998877' })).status, 200);
      await c.get('/panel/send');
      const send = await c.post('/panel/send', {
        sender: 'NEWBRAND',
        numbers: '05321112233',
        text: 'hello',
        confirm: '1',
      });
      assert.equal(send.status, 303, send.body);
      await c.get('/panel/account');
      const session = c.cookies.get('haberci_session') ?? '';
      assert.equal(
        (await c.post('/panel/account/password', { current_password: customer.password, new_password: newPassword }))
          .status,
        303,
      );

      const mine = (await h.runtime.store.audit.search({ actor: customer.email, limit: 100 })).map((r) => r.action);
      for (const action of [
        'key.create',
        'webhook.update',
        'key.pause',
        'key.reactivate',
        'key.rotate',
        'group.create',
        'blocklist.add',
        'send.create',
        'user.password-change',
      ]) {
        assert.ok(mine.includes(action), `${action} in ${mine.join(', ')}`);
      }
      const [rotation] = await h.runtime.store.audit.search({ action: 'key.rotate', limit: 1 });
      assert.equal(rotation?.address, '203.0.113.5');
      assert.equal(rotation?.objectId, String(keyId));

      const secrets = [
        apiKey,
        shownKey,
        rotatedKey,
        webhookSecret,
        newPassword,
        customer.password,
        providerPassword,
        session,
        p.csrf ?? 'x',
        c.csrf ?? 'x',
      ];
      const rows = await allRows();
      assert.ok(rows.length >= 19, `${rows.length} rows`);
      for (const row of rows) {
        const text = JSON.stringify(row);
        for (const secret of secrets) assert.ok(!text.includes(secret), `a secret in ${text}`);
        assert.doesNotMatch(text, /hb_(live|test)_/);
      }

      // The customer sees the account's own activity; the provider's staff appear as "The provider".
      const account = await c.get('/panel/account');
      assert.match(account.body, /<h2>Activity<\/h2>/);
      assert.match(
        account.body,
        /<td>console-customer@example\.com<\/td><td class="action">user\.password-change<\/td>/,
      );
      assert.match(account.body, /<td>The provider<\/td><td class="action">sender-id\.approve<\/td>/);
      assert.doesNotMatch(account.body, new RegExp(providerEmail.replace(/\./g, '\\.')));
      assert.doesNotMatch(account.body, /198\.51\.100\.7/);
    });

    it('records a password set through a one-time link as its user’s, never the link’s token; shows the console in Turkish', async () => {
      const invited = await valueOf(h.users.create({ accountId: customer.accountId, email: 'invitee@example.com' }));
      const token = invited.set_password_token ?? '';
      const visitor = h.browser('192.0.2.44');
      await visitor.get(`/panel/set-password?token=${encodeURIComponent(token)}`);
      assert.equal((await visitor.post('/panel/set-password', { token, password: 'invitee-password-1' })).status, 303);
      const [row] = await h.runtime.store.audit.search({ action: 'user.password-set', limit: 1 });
      assert.deepEqual(
        [row?.actor, row?.actorUserId, row?.address, row?.accountId],
        ['invitee@example.com', invited.id, '192.0.2.44', customer.accountId],
      );
      for (const r of await allRows())
        assert.ok(!JSON.stringify(r).includes(token) && !JSON.stringify(r).includes('invitee-password-1'));

      const tr = h.browser('198.51.100.8', { 'accept-language': 'tr' });
      await tr.get('/panel/sign-in');
      assert.equal((await tr.post('/panel/sign-in', { email: providerEmail, password: providerPassword })).status, 303);
      const home = await tr.get('/panel/provider');
      assert.match(home.body, /<h1>Sağlayıcı konsolu<\/h1>/);
      assert.match(home.body, />Hesaplar<\/a>/);
      assert.match((await tr.get(`/panel/provider/accounts/${customer.accountId}`)).body, /Hesabı askıya al/);
      assert.match((await tr.get('/panel/provider/audit')).body, /<h1>Denetim kaydı<\/h1>/);
    });

    it('searches the audit log by account, actor, action and dates, newest first, paged by key', async () => {
      const page = await p.get(`/panel/provider/audit?account=${customer.accountId}&actor=staff%40&action=account.`);
      assert.equal(page.status, 200);
      const actions = [...page.body.matchAll(/<td class="action">([^<]+)<\/td>/g)].map((m) => m[1]);
      assert.ok(actions.length >= 5);
      assert.ok(
        actions.every((a) => a?.startsWith('account.')),
        actions.join(),
      );
      assert.match(
        page.body,
        /<td>staff@provider\.example<\/td><td>198\.51\.100\.7<\/td><td class="action">account\.debit<\/td>/,
      );
      assert.match(
        (await p.get('/panel/provider/audit?from=2026-03-15&to=2026-03-15&action=sender-id.approve')).body,
        /sender-id\.approve/,
      );
      const none = await p.get('/panel/provider/audit?from=2026-03-16&action=sender-id.approve');
      assert.match(none.body, /No entry matches\./);
      const bad = await p.get('/panel/provider/audit?from=15.03.2026&account=abc');
      assert.equal(bad.status, 400);
      assert.match(bad.body, /id="audit-from-error">Error: Use a date as YYYY-MM-DD\./);
      assert.match(bad.body, /id="audit-account-error">Error: Use an account number\./);

      const log = new AuditLog(h.runtime.store, h.clock);
      for (let i = 0; i < 55; i += 1)
        await log.record(
          { kind: 'cli', osUser: 'ops' },
          { action: 'test.paging', accountId: null, object: { type: 'thing', id: i } },
        );
      const first = await p.get('/panel/provider/audit?action=test.paging');
      assert.equal((first.body.match(/thing \d+/g) ?? []).length, 50);
      assert.match(first.body, /thing 54</);
      const next = /<a href="(\/panel\/provider\/audit\?action=test.paging&amp;before=\d+)" rel="next">Next page<\/a>/
        .exec(first.body)?.[1]
        ?.replace(/&amp;/g, '&');
      assert.ok(next);
      const second = await p.get(next);
      assert.deepEqual(second.body.match(/thing \d+/g), ['thing 4', 'thing 3', 'thing 2', 'thing 1', 'thing 0']);
    });

    it('reads hostile query strings and forms as text: a repeated name, NUL, a lone surrogate, a cursor past 32 bits (no 500)', async () => {
      for (const path of [
        '/panel/provider/accounts?q=a&q=b',
        '/panel/provider/accounts?q=x%00y',
        '/panel/provider/accounts?q=%ED%A0%80',
        '/panel/provider/accounts?after=999999999999',
        `/panel/provider/accounts/${customer.accountId}?before=999999999999`,
        '/panel/provider/sender-ids?after=999999999999',
        '/panel/provider/sender-ids?done=approved&done=rejected',
        '/panel/provider/audit?actor=a&actor=b',
        '/panel/provider/audit?from=2026-01-01&from=2026-02-01',
        '/panel/provider/audit?actor=x%00y',
      ]) {
        assert.equal((await p.get(path)).status, 200, path);
      }
      assert.equal((await c.get('/panel/blocklist?q=1&q=2')).status, 200);
      const made = await p.post('/panel/provider/accounts', { name: 'Nul\u0000Name' });
      assert.equal(made.status, 303);
      const id = Number(/accounts\/(\d+)/.exec(made.location ?? '')?.[1]);
      assert.equal((await h.runtime.store.accounts.getAccount(id))?.name, 'NulName');
      const debit = await p.post(`/panel/provider/accounts/${id}/debit`, { amount: '1', reason: '\u0000' });
      assert.equal(debit.status, 400, 'a reason of NUL alone is no reason');
    });
  });
}
