import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { valueOf } from '../helpers/results.js';

const script = '<script>alert(1)</script>';
const img = '<img src=x onerror=alert(1)>';

/**
 * No payload came out as markup: a tag needs its raw "<", and each payload appears with its
 * "<" escaped (preact leaves ">" as is, which is valid HTML).
 */
function assertEscaped(body: string, where: string): void {
  assert.ok(!body.includes('<script>alert') && !body.includes('<img src=x'), `${where}: a payload came out as markup`);
  assert.ok(
    body.includes('&lt;script>alert(1)&lt;/script>') || body.includes('&lt;img src=x onerror=alert(1)>'),
    `${where}: the text is shown, escaped`,
  );
}

describe('panel: customer-written text is always escaped', () => {
  let h: PanelHarness;
  let browser: PanelBrowser;
  let keyId = 0;
  before(async () => {
    h = await createPanelHarness();
    // Written through the store and the provider's commands, which take any text for these.
    const account = await valueOf(
      h.runtime.admin.createAccount({
        name: `Acme ${script}${img}`,
        balanceMain: 10,
        balanceInternational: 0,
        perMinuteLimit: 0,
        otpBrand: '',
        ipAllow: [],
        globalSending: false,
      }),
    );
    const email = 'owner@example.com';
    await valueOf(h.users.create({ accountId: account.id, email, password: 'owner-password' }));
    await h.runtime.store.users.createUser(
      { accountId: account.id, email: `${script}${img}@example.com`, passwordHash: null },
      h.clock.now(),
    );
    const pending = await h.runtime.store.senderIds.addSenderId(account.id, `${script}`, 'pending', h.clock.now());
    const rejected = await h.runtime.store.senderIds.addSenderId(account.id, `${img}`, 'pending', h.clock.now());
    assert.ok(pending && rejected);
    await h.runtime.store.users.reviewSenderId(rejected.id, 'rejected', `Because ${script}${img}`, h.clock.now());
    keyId = (
      await valueOf(
        h.runtime.admin.createKey(account.id, {
          ...defaultKeySettings,
          webhookUrl: `https://example.com/${script}?${img}`,
        }),
      )
    ).id;
    browser = h.browser();
    await browser.signIn(email, 'owner-password');
  });
  after(() => h.close());

  it('in key pages (webhook URL)', async () => {
    assertEscaped((await browser.get(`/panel/keys/${keyId}`)).body, 'key page');
  });

  it('in a webhook URL the customer typed, shown back with an error', async () => {
    await browser.get(`/panel/keys/${keyId}`);
    const answer = await browser.post(`/panel/keys/${keyId}/webhook`, { webhook_url: `javascript:${script}${img}` });
    assert.equal(answer.status, 400);
    assertEscaped(answer.body, 'webhook form with an error');
  });

  it('in the sender ID list (titles and rejection reasons)', async () => {
    const body = (await browser.get('/panel/sender-ids')).body;
    assertEscaped(body, 'sender IDs');
    assert.ok(body.includes('Because &lt;script>'));
    const posted = await browser.post('/panel/sender-ids', { title: `${img}` });
    assert.equal(posted.status, 400);
    assertEscaped(posted.body, 'sender ID request with an error');
  });

  it('in the account page (account name, user emails) and the allowlist typed back', async () => {
    assertEscaped((await browser.get('/panel/account')).body, 'account page');
    const posted = await browser.post('/panel/account/allowlist', { ip_allow: `${script}${img}` });
    assert.equal(posted.status, 400);
    assertEscaped(posted.body, 'allowlist with an error');
  });

  it('in the sign-in form (the email typed back, the next address)', async () => {
    const visitor = h.browser('127.0.0.5');
    // A next with a space or a control character is no panel address (it goes to the
    // panel's home): this one is printable ASCII, so it is kept and typed back.
    await visitor.get(`/panel/sign-in?next=${encodeURIComponent(`/panel/"${script}`)}`);
    const answer = await visitor.post('/panel/sign-in', {
      email: `${script}${img}`,
      password: 'whatever-password',
      next: `/panel/"${script}`,
    });
    assert.equal(answer.status, 401);
    assertEscaped(answer.body, 'sign-in form');
    assert.ok(answer.body.includes('value="/panel/&quot;&lt;script>'));
  });
});
