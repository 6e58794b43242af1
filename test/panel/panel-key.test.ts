/**
 * The key panel sends are recorded under is the panel's own: after a panel send makes it,
 * the customer neither sees it on the API keys page nor reaches it through any key page or
 * action (404, as another account's key, nothing changed), and the panel still sends.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { panelKeyHint } from '../../src/ports/panel-queries.js';
import { valueOf } from '../helpers/results.js';

/** Every key page a customer can open. */
const keyPages = (keyId: number): string[] => [`/panel/keys/${keyId}`, `/panel/keys/${keyId}/revoke`];

/** Every state-changing key action, with a form that would change something. */
const keyActions = (keyId: number): [string, Record<string, string | string[]>][] => [
  [`/panel/keys/${keyId}/settings`, { permissions: ['check_balance'], hourly_limit: '1', sandbox: '1' }],
  [`/panel/keys/${keyId}/pause`, {}],
  [`/panel/keys/${keyId}/reactivate`, {}],
  [`/panel/keys/${keyId}/revoke`, {}],
  [`/panel/keys/${keyId}/rotate`, { keep_old: '1' }],
  [`/panel/keys/${keyId}/rotate`, {}],
  [`/panel/keys/${keyId}/webhook`, { webhook_url: 'https://example.com/hook', webhook_secret: 'a-secret' }],
  [`/panel/keys/${keyId}/webhook/test`, {}],
  [`/panel/keys/${keyId}/webhook/deliveries/1/redeliver`, {}],
];

for (const dialect of testDialects()) {
  describeOn(dialect, `panel: the panel's own key is hidden from the customer (${dialect.name})`, () => {
    let h: PanelHarness;
    let a: PanelBrowser;
    let accountA = 0;
    let ownKey = 0;
    let panelKey = 0;

    const send = async (number: string): Promise<number> => {
      await a.get('/panel/send');
      const sent = await a.post('/panel/send', {
        sender: 'ACME',
        numbers: number,
        csv: '',
        group: '',
        text: 'Merhaba',
        schedule: '',
        confirm: '1',
      });
      assert.equal(sent.status, 303, sent.body);
      return Number(/\/campaigns\/(\d+)/.exec(sent.location ?? '')?.[1]);
    };

    const snapshot = async (): Promise<string> =>
      JSON.stringify({
        keys: await Promise.all(
          (await h.runtime.store.users.keyIdsOf(accountA)).map((id) => h.runtime.store.keys.getKey(id)),
        ),
        events: (await h.runtime.store.events.recentForKey(panelKey, 50)).map((e) => [e.id, e.state, e.log.length]),
      });

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      const user = await h.account('Panel Key');
      accountA = user.accountId;
      ownKey = (await valueOf(h.runtime.admin.createKey(accountA, { ...defaultKeySettings }))).id;
      await valueOf(h.runtime.admin.addSenderId(accountA, 'ACME', 'approved'));
      a = h.browser();
      await a.signIn(user.email, user.password);
      assert.equal(await h.runtime.store.panel.panelKeyId(accountA), null, 'no panel key before the first panel send');
      await send('905321110001');
      panelKey = (await h.runtime.store.panel.panelKeyId(accountA)) ?? 0;
      assert.ok(panelKey > 0, 'the panel send made the panel key');
      assert.equal((await h.runtime.store.keys.getKey(panelKey))?.keyHint, panelKeyHint);
    });
    after(async () => h.close());

    it('lists the customer\u2019s own keys but not the panel\u2019s', async () => {
      const list = await a.get('/panel/keys');
      assert.equal(list.status, 200);
      assert.match(list.body, new RegExp(`Key ${ownKey} `));
      assert.doesNotMatch(list.body, new RegExp(`Key ${panelKey} `));
      assert.doesNotMatch(list.body, new RegExp(`/panel/keys/${panelKey}"`));
      assert.doesNotMatch(list.body, /\(panel\)/);
    });

    it('answers 404 to every page of the panel key, as to another account\u2019s key', async () => {
      for (const path of keyPages(panelKey)) {
        const answer = await a.get(path);
        assert.equal(answer.status, 404, path);
        assert.match(answer.body, /Page not found/);
        assert.doesNotMatch(answer.body, /\(panel\)/);
      }
      // The customer's own key is still there: the 404 is for the panel key only.
      assert.equal((await a.get(`/panel/keys/${ownKey}`)).status, 200);
    });

    it('answers 404 to every action on the panel key and changes nothing', async () => {
      const before = await snapshot();
      await a.get('/panel/keys');
      for (const [path, form] of keyActions(panelKey)) {
        const answer = await a.post(path, form);
        assert.equal(answer.status, 404, path);
      }
      assert.equal(await snapshot(), before);
    });

    it('still sends from the panel afterwards, under the same key', async () => {
      const keysBefore = (await h.runtime.store.users.keyIdsOf(accountA)).length;
      const sendId = await send('905321110002');
      assert.ok(sendId > 0);
      const campaign = await a.get(`/panel/campaigns/${sendId}`);
      assert.equal(campaign.status, 200);
      assert.equal(await h.runtime.store.panel.panelKeyId(accountA), panelKey);
      assert.equal((await h.runtime.store.users.keyIdsOf(accountA)).length, keysBefore, 'no new key');
      const key = await h.runtime.store.keys.getKey(panelKey);
      assert.equal(key?.state, 'Active');
      assert.equal(key?.sandbox, false);
    });
  });
}
