import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from '../helpers/results.js';

/** Every state-changing action of the panel on a key, with a form that would change something. */
const keyActions = (keyId: number, eventId: number): [string, Record<string, string | string[]>][] => [
  [`/panel/keys/${keyId}/settings`, { permissions: ['check_balance'], hourly_limit: '1' }],
  [`/panel/keys/${keyId}/pause`, {}],
  [`/panel/keys/${keyId}/reactivate`, {}],
  [`/panel/keys/${keyId}/revoke`, {}],
  [`/panel/keys/${keyId}/rotate`, { keep_old: '1' }],
  [`/panel/keys/${keyId}/webhook`, { webhook_url: 'https://attacker.example/hook', webhook_secret: 'stolen-secret' }],
  [`/panel/keys/${keyId}/webhook/test`, {}],
  [`/panel/keys/${keyId}/webhook/deliveries/${eventId}/redeliver`, {}],
];

for (const dialect of testDialects()) {
  describeOn(
    dialect,
    `panel: one account never reaches another, and every state change needs its token (${dialect.name})`,
    () => {
      let h: PanelHarness;
      let receiver: Receiver;
      let a: PanelBrowser;
      let b: PanelBrowser;
      let keyA = 0;
      let keyB = 0;
      let eventA = 0;
      let accountA = 0;
      let accountB = 0;

      before(async () => {
        h = await createPanelHarness(await dialect.location());
        receiver = await startReceiver();
        const userA = await h.account('Isolation A');
        const userB = await h.account('Isolation B');
        accountA = userA.accountId;
        accountB = userB.accountId;
        keyA = (
          await valueOf(
            h.runtime.admin.createKey(accountA, {
              ...defaultKeySettings,
              webhookUrl: `${receiver.url}/a`,
              webhookSecret: 'secret-a',
            }),
          )
        ).id;
        keyB = (
          await valueOf(h.runtime.admin.createKey(accountB, { ...defaultKeySettings, webhookUrl: `${receiver.url}/b` }))
        ).id;
        await valueOf(h.runtime.admin.addSenderId(accountA, 'ALPHA', 'approved'));
        a = h.browser();
        b = h.browser('127.0.0.2');
        await a.signIn(userA.email, userA.password);
        await b.signIn(userB.email, userB.password);
        await a.get(`/panel/keys/${keyA}`);
        const tested = await a.post(`/panel/keys/${keyA}/webhook/test`);
        eventA = Number(/event=(\d+)/.exec(tested.location ?? '')?.[1]);
        assert.ok(eventA > 0);
      });
      after(async () => {
        await receiver.close();
        await h.close();
      });

      const snapshot = async (): Promise<string> =>
        JSON.stringify({
          keys: await Promise.all(
            (await h.runtime.store.users.keyIdsOf(accountA)).map((id) => h.runtime.store.keys.getKey(id)),
          ),
          account: await h.runtime.store.accounts.getAccount(accountA),
          senders: await h.runtime.store.senderIds.listOf(accountA),
          events: (await h.runtime.store.events.recentForKey(keyA, 50)).map((e) => [e.id, e.state, e.log.length]),
          received: receiver.requests.length,
        });

      it('shows a user of account B nothing of account A: not its keys, sender IDs or users', async () => {
        assert.doesNotMatch((await b.get('/panel/keys')).body, new RegExp(`Key ${keyA} `));
        assert.doesNotMatch((await b.get('/panel/sender-ids')).body, /ALPHA/);
        assert.doesNotMatch((await b.get('/panel/account')).body, /isolation-a@example\.com/);
        for (const path of [`/panel/keys/${keyA}`, `/panel/keys/${keyA}/revoke`]) {
          const answer = await b.get(path);
          assert.equal(answer.status, 404, path);
          assert.doesNotMatch(answer.body, /secret-a|\/a"/);
        }
      });

      it('refuses (404) every key and webhook action of a user of account B on account A\u2019s key and event, changing nothing', async () => {
        const before = await snapshot();
        await b.get('/panel/keys');
        for (const [path, form] of keyActions(keyA, eventA)) {
          const answer = await b.post(path, form);
          assert.equal(answer.status, 404, path);
        }
        // A's event through B's own key.
        assert.equal((await b.post(`/panel/keys/${keyB}/webhook/deliveries/${eventA}/redeliver`)).status, 404);
        assert.equal(await snapshot(), before);
      });

      it('refuses every state change without the session\u2019s token, with a wrong one, or with another session\u2019s (403), changing nothing', async () => {
        const before = await snapshot();
        const other = b.csrf ?? '';
        assert.notEqual(other, '');
        const posts: [string, Record<string, string | string[]>][] = [
          ...keyActions(keyA, eventA),
          ['/panel/keys', { permissions: ['check_balance'] }],
          ['/panel/sender-ids', { title: 'NEWONE' }],
          ['/panel/account/allowlist', { ip_allow: '192.0.2.1' }],
          [
            '/panel/account/password',
            { current_password: 'password-Isolation A', new_password: 'a brand new password' },
          ],
          ['/panel/sign-out-everywhere', {}],
          ['/panel/sign-out', {}],
        ];
        for (const [path, form] of posts) {
          for (const token of [null, 'forged-token-forged-token-forged-00', other]) {
            const answer = await a.post(path, form, token);
            assert.equal(answer.status, 403, `${path} with ${token === null ? 'no token' : 'a wrong token'}`);
          }
        }
        // The same token in the htmx header is accepted, a wrong one in the header is not.
        const viaHeader = await a.request(
          'POST',
          `/panel/keys/${keyA}/pause`,
          {},
          { 'x-csrf-token': 'nope-nope-nope-nope-nope-nope' },
        );
        assert.equal(viaHeader.status, 403);
        assert.equal(await snapshot(), before);
        assert.equal((await a.get('/panel/keys')).status, 200, 'still signed in');
        const ok = await a.request('POST', `/panel/keys/${keyA}/pause`, {}, { 'x-csrf-token': a.csrf ?? '' });
        assert.equal(ok.status, 303);
        assert.equal((await h.runtime.store.keys.getKey(keyA))?.state, 'Paused');
      });

      it('gives a provider user the console home, never an account\u2019s pages, and a customer never the provider\u2019s', async () => {
        await valueOf(
          h.users.create({ accountId: null, email: 'provider@example.com', password: 'provider-password' }),
        );
        const p = h.browser('127.0.0.9');
        await p.get('/panel/sign-in');
        assert.equal(
          (await p.post('/panel/sign-in', { email: 'provider@example.com', password: 'provider-password' })).status,
          303,
        );
        const home = await p.get('/panel/');
        assert.equal(home.location, '/panel/provider');
        assert.match((await p.get('/panel/provider')).body, /Provider console/);
        assert.equal((await p.get('/panel/keys')).status, 404);
        assert.equal((await p.get(`/panel/keys/${keyA}`)).status, 404);
        assert.equal((await b.get('/panel/provider')).status, 404);
      });
    },
  );
}
