/**
 * A suspended account's panel users: they sign in and read (balance, messages, campaigns,
 * keys, groups, exports), and every action that would send, charge or change the account is
 * refused with a page that says why and changes nothing. Their own sign-in stays theirs
 * (docs/decisions.md, "A suspended account in the panel"): they change their password (the
 * old one then signs in no more, the change is audited, the account is untouched) and sign
 * out everywhere, and the notice on every page says so. The list of actions is checked
 * against every POST route the customer side registers.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from '../helpers/results.js';

const suspendedEn = /This account is suspended by your provider\./;
const suspendedTr = /Bu hesap sağlayıcınız tarafından askıya alındı\./;
const ownSignInEn = /Your own sign-in stays yours: you can still change your password and sign out everywhere\./;
const ownSignInTr = /Kendi oturumunuz sizindir: parolanızı değiştirebilir ve her yerden çıkış yapabilirsiniz\./;

/** Routes of the customer side that are no change of the account. */
const notChanges = new Set([
  'POST /panel/sign-in',
  'POST /panel/sign-out',
  'POST /panel/sign-out-everywhere',
  'POST /panel/set-password',
  'POST /panel/account/password',
]);

for (const dialect of testDialects()) {
  describeOn(dialect, `panel: a suspended account's users read, and change nothing (${dialect.name})`, () => {
    let h: PanelHarness;
    let receiver: Receiver;
    let c: PanelBrowser;
    let user = { accountId: 0, userId: 0, email: '', password: '' };
    const ids = { key: 0, paused: 0, event: 0, group: 0, send: 0, template: 0 };

    /** Every action a customer can post, with a form that would change something if allowed. */
    const actions = (): [string, Record<string, string | string[]>][] => [
      ['/panel/send', { sender: 'ACME', numbers: '05321112233', text: 'hello', confirm: '1' }],
      ['/panel/groups', { name: 'New group' }],
      [`/panel/groups/${ids.group}/rename`, { name: 'Renamed' }],
      [`/panel/groups/${ids.group}/delete`, {}],
      [`/panel/groups/${ids.group}/contacts`, { numbers: '05329990001', csv: '' }],
      [`/panel/groups/${ids.group}/contacts/remove`, { number: '905321110001' }],
      ['/panel/blocklist', { numbers: '05329990002', csv: '' }],
      [`/panel/campaigns/${ids.send}/pause`, {}],
      [`/panel/campaigns/${ids.send}/resume`, {}],
      [`/panel/campaigns/${ids.send}/cancel`, {}],
      ['/panel/blocklist/remove', { number: '905321110002' }],
      ['/panel/keys', { permissions: ['check_balance'] }],
      [`/panel/keys/${ids.key}/settings`, { permissions: ['check_balance'], hourly_limit: '1' }],
      [`/panel/keys/${ids.key}/pause`, {}],
      [`/panel/keys/${ids.paused}/reactivate`, {}],
      [`/panel/keys/${ids.key}/revoke`, {}],
      [`/panel/keys/${ids.key}/rotate`, { keep_old: '1' }],
      [`/panel/keys/${ids.key}/webhook`, { webhook_url: `${receiver.url}/other`, webhook_attempts: '3' }],
      [`/panel/keys/${ids.key}/webhook/test`, {}],
      [`/panel/keys/${ids.key}/webhook/deliveries/${ids.event}/redeliver`, {}],
      ['/panel/sender-ids', { title: 'NEWONE' }],
      [`/panel/otp/keys/${ids.key}`, { validity: '60', countries: '90,49' }],
      ['/panel/account/allowlist', { ip_allow: '203.0.113.0/24' }],
      ['/panel/account/send-defaults', { window_from: '09:00', window_to: '18:00', window_days: ['1'], speed: '5' }],
      ['/panel/templates', { name: 'New template', text: 'Hi {{name}}' }],
      [`/panel/templates/${ids.template}/delete`, {}],
      [
        '/panel/consents/add',
        {
          recipient: '05321110009',
          status: 'ONAY',
          recipient_type: 'BIREYSEL',
          source: 'HS_WEB',
          consent_date: '2026-01-02 10:00:00',
        },
      ],
      ['/panel/consents/import', { csv: '05321110008,ONAY,BIREYSEL,HS_WEB,2026-01-02 10:00:00' }],
    ];

    /** Everything an action could change, and what reached the webhook receiver. */
    const snapshot = async (): Promise<string> => {
      const store = h.runtime.store;
      const keyIds = await store.users.keyIdsOf(user.accountId);
      return JSON.stringify({
        account: await store.accounts.getAccount(user.accountId),
        keys: await Promise.all(keyIds.map((id) => store.keys.getKey(id))),
        senders: await store.senderIds.listOf(user.accountId),
        groups: await store.panel.groups(user.accountId),
        contacts: await store.panel.contacts(user.accountId, ids.group, null, 100),
        blocked: await store.panel.blocked(user.accountId, '', null, 100),
        consents: await store.consents.entriesAfter(user.accountId, null, 100),
        sends: await store.panel.campaigns(user.accountId, null, 100),
        events: (await store.events.recentForKey(ids.key, 50)).map((e) => [e.id, e.state, e.log.length]),
        audit: (await store.audit.search({ accountId: user.accountId, limit: 1000 })).length,
        otp: await store.otp.settingsOf(ids.key),
        templates: await store.templates.list(user.accountId),
        received: receiver.requests.length,
      });
    };

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      receiver = await startReceiver();
      user = await h.account('Suspended Customer');
      const admin = h.runtime.admin;
      await valueOf(admin.addSenderId(user.accountId, 'ACME', 'approved'));
      ids.key = (
        await valueOf(admin.createKey(user.accountId, { ...defaultKeySettings, webhookUrl: `${receiver.url}/a` }))
      ).id;
      ids.paused = (await valueOf(admin.createKey(user.accountId, { ...defaultKeySettings }))).id;
      await valueOf(admin.changeKeyState(ids.paused, 'pause'));
      c = h.browser();
      await c.signIn(user.email, user.password);
      await c.get(`/panel/keys/${ids.key}`);
      ids.event = Number(/event=(\d+)/.exec((await c.post(`/panel/keys/${ids.key}/webhook/test`)).location ?? '')?.[1]);
      await c.get('/panel/groups');
      ids.group = Number(/groups\/(\d+)/.exec((await c.post('/panel/groups', { name: 'Kept' })).location ?? '')?.[1]);
      await c.get(`/panel/groups/${ids.group}`);
      await c.post(`/panel/groups/${ids.group}/contacts`, { numbers: '05321110001', csv: '' });
      await c.get('/panel/blocklist');
      await c.post('/panel/blocklist', { numbers: '05321110002', csv: '' });
      await c.get('/panel/send');
      const sent = await c.post('/panel/send', {
        sender: 'ACME',
        numbers: '05321112233',
        text: 'before',
        confirm: '1',
      });
      ids.send = Number(/campaigns\/(\d+)/.exec(sent.location ?? '')?.[1]);
      await c.get('/panel/templates');
      await c.post('/panel/templates', { name: 'Kept', text: 'Hi {{name}}' });
      ids.template = (await h.runtime.store.templates.list(user.accountId))[0]?.id ?? 0;
      assert.ok(ids.template > 0);
      assert.ok(ids.event > 0 && ids.group > 0 && ids.send > 0);
      await valueOf(admin.updateAccount(user.accountId, { status: 'Suspended' }, {}));
    });
    after(async () => {
      await receiver.close();
      await h.close();
    });

    it('lists every action of the customer side that can change something', () => {
      const posted = h.routes
        .filter((r) => r.startsWith('POST /panel/') && !/^POST \/panel\/(provider|reseller)\//.test(r))
        .filter((r) => !notChanges.has(r))
        .sort();
      const ours = actions()
        .map(([path]) =>
          `POST ${path}`
            .replace(/\/keys\/\d+\/webhook\/deliveries\/\d+\//, '/keys/:id/webhook/deliveries/:event/')
            .replace(/\/(keys|groups|campaigns|templates)\/\d+/, '/$1/:id'),
        )
        .sort();
      assert.deepEqual(ours, posted);
    });

    it('reads every page and export, each saying why nothing can be changed', async () => {
      for (const path of [
        '/panel/overview',
        '/panel/otp',
        `/panel/otp/keys/${ids.key}`,
        '/panel/send',
        '/panel/messages',
        `/panel/campaigns/${ids.send}`,
        '/panel/campaigns',
        '/panel/groups',
        `/panel/groups/${ids.group}`,
        '/panel/blocklist',
        '/panel/consents',
        '/panel/keys',
        `/panel/keys/${ids.key}`,
        '/panel/sender-ids',
        '/panel/templates',
        '/panel/account',
      ]) {
        const page = await c.get(path);
        assert.equal(page.status, 200, path);
        assert.match(page.body, suspendedEn, path);
      }
      for (const path of [
        `/panel/groups/${ids.group}/export.csv`,
        `/panel/campaigns/${ids.send}/export.csv`,
        '/panel/consents/export.csv',
      ]) {
        const exported = await c.get(path);
        assert.equal(exported.status, 200, path);
        assert.equal(exported.headers['content-type'], 'text/csv; charset=utf-8', path);
      }
      await c.get('/panel/lang/tr');
      assert.match((await c.get('/panel/overview')).body, suspendedTr);
      await c.get('/panel/lang/en');
    });

    it('refuses every action that would send, charge or change the account, and changes nothing', async () => {
      const before = await snapshot();
      for (const [path, form] of actions()) {
        await c.get('/panel/account');
        const answer = await c.post(path, form);
        assert.equal(answer.status, 403, `${path}: ${answer.status}`);
        assert.match(answer.body, /<h1>Account suspended<\/h1>/, path);
        assert.match(answer.body, suspendedEn, path);
      }
      assert.equal(await snapshot(), before);
    });

    it('still changes the user’s own password, as its notice says, and nothing of the account', async () => {
      const page = await c.get('/panel/account');
      assert.match(page.body, ownSignInEn);
      await c.get('/panel/lang/tr');
      assert.match((await c.get('/panel/account')).body, ownSignInTr);
      await c.get('/panel/lang/en');
      const other = h.browser('127.0.0.2');
      await other.signIn(user.email, user.password);
      const before = await snapshot();
      await c.get('/panel/account');
      const changed = await c.post('/panel/account/password', {
        current_password: user.password,
        new_password: 'a-new-password-1',
      });
      assert.equal(changed.status, 303);
      assert.equal(changed.location, '/panel/account?done=password');
      // The account is as it was, but for the audit row of the change.
      const after = JSON.parse(await snapshot()) as { audit: number };
      assert.deepEqual({ ...after, audit: 0 }, { ...(JSON.parse(before) as object), audit: 0 });
      const audit = await h.runtime.store.audit.search({ accountId: user.accountId, limit: 5 });
      assert.equal(audit[0]?.action, 'user.password-change');
      // The old password signs in no more, the other session has ended, the new one signs in.
      assert.equal((await other.get('/panel/overview')).status, 303, 'the other session ended');
      await other.get('/panel/sign-in');
      assert.equal((await other.post('/panel/sign-in', { email: user.email, password: user.password })).status, 401);
      await other.signIn(user.email, 'a-new-password-1');
      user.password = 'a-new-password-1';
    });

    it('works again once reactivated', async () => {
      await valueOf(h.runtime.admin.updateAccount(user.accountId, { status: 'Active' }, {}));
      assert.doesNotMatch((await c.get('/panel/overview')).body, suspendedEn);
      await c.get('/panel/groups');
      assert.equal((await c.post('/panel/groups', { name: 'After' })).status, 303);
    });
  });
}
