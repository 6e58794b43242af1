import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { SenderIdReview } from '../../src/services/sender-id-review.js';
import { tokenHash } from '../../src/services/panel/users.js';
import { valueOf } from '../helpers/results.js';

describe('panel sender IDs and account', () => {
  let h: PanelHarness;
  let browser: PanelBrowser;
  let user: Awaited<ReturnType<PanelHarness['account']>>;
  before(async () => {
    h = await createPanelHarness();
    user = await h.account('Account Page');
    browser = h.browser();
    await browser.signIn(user.email, user.password);
  });
  after(() => h.close());

  it('requests a sender ID, pending until the provider approves it; a rejection shows its reason', async () => {
    await browser.get('/panel/sender-ids');
    const requested = await browser.post('/panel/sender-ids', { title: 'NEWBRAND' });
    assert.equal(requested.status, 303);
    let page = await browser.get(requested.location ?? '');
    assert.match(page.body, /Requested\. It stays pending until the provider approves it\./);
    assert.match(page.body, /<th scope="row">NEWBRAND<\/th><td class="state">Pending approval<\/td>/);
    const [made] = await h.runtime.store.senderIds.listOf(user.accountId);
    assert.equal(made?.status, 'pending');
    assert.equal(await h.runtime.store.senderIds.hasApprovedSender(user.accountId, 'NEWBRAND'), false);
    const review = new SenderIdReview(h.runtime.store, h.clock);
    await valueOf(review.approve(made?.id ?? 0));
    assert.equal(await h.runtime.store.senderIds.hasApprovedSender(user.accountId, 'NEWBRAND'), true);
    await browser.post('/panel/sender-ids', { title: 'OTHERONE' });
    const other = (await h.runtime.store.senderIds.listOf(user.accountId)).find((s) => s.title === 'OTHERONE');
    await valueOf(review.reject(other?.id ?? 0, 'The brand is not yours'));
    page = await browser.get('/panel/sender-ids');
    assert.match(page.body, /<th scope="row">NEWBRAND<\/th><td class="state">Approved<\/td>/);
    assert.match(
      page.body,
      /<th scope="row">OTHERONE<\/th><td class="state">Rejected<\/td><td>[^<]+<\/td><td>The brand is not yours<\/td>/,
    );
  });

  it('refuses a sender ID too long or already there, next to the field', async () => {
    await browser.get('/panel/sender-ids');
    const long = await browser.post('/panel/sender-ids', { title: 'MUCHTOOLONGNAME' });
    assert.equal(long.status, 400);
    assert.match(long.body, /id="sender-title-error">Error: Use at most 11 characters/);
    const twice = await browser.post('/panel/sender-ids', { title: 'NEWBRAND' });
    assert.equal(twice.status, 400);
    assert.match(twice.body, /Error: This account already has this sender ID\./);
  });

  it('lists the account\u2019s users and sets the account IP allowlist (bad entries refused next to the field)', async () => {
    await valueOf(h.users.create({ accountId: user.accountId, email: 'colleague@example.com' }));
    const page = await browser.get('/panel/account');
    assert.match(page.body, /account-page@example\.com \(you\)/);
    assert.match(page.body, /colleague@example\.com <\/th><td>Invited \(no password yet\)/);
    const bad = await browser.post('/panel/account/allowlist', { ip_allow: '10.0.0.0/8\nnonsense' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /id="account-allowlist-error">Error: Not an IP address or CIDR range: nonsense/);
    assert.deepEqual((await h.runtime.store.accounts.getAccount(user.accountId))?.ipAllow, []);
    const saved = await browser.post('/panel/account/allowlist', { ip_allow: '10.0.0.0/8\n192.0.2.7' });
    assert.equal(saved.status, 303);
    assert.deepEqual((await h.runtime.store.accounts.getAccount(user.accountId))?.ipAllow, ['10.0.0.0/8', '192.0.2.7']);
    await browser.post('/panel/account/allowlist', { ip_allow: '' });
    assert.deepEqual((await h.runtime.store.accounts.getAccount(user.accountId))?.ipAllow, []);
  });

  it('changes the password: the wrong current one is refused next to its field; a change ends the other sessions', async () => {
    const other = h.browser('127.0.0.8');
    await other.signIn(user.email, user.password);
    await browser.get('/panel/account');
    const wrong = await browser.post('/panel/account/password', {
      current_password: 'not-it-at-all',
      new_password: 'a-new-password-1',
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body, /id="current-password-error">Error: The current password is not right\./);
    const short = await browser.post('/panel/account/password', {
      current_password: user.password,
      new_password: 'short',
    });
    assert.match(short.body, /id="new-password-error">Error: Use at least 10 characters\./);
    const before = browser.cookies.get('haberci_session') ?? '';
    const changed = await browser.post('/panel/account/password', {
      current_password: user.password,
      new_password: 'a-new-password-1',
    });
    assert.equal(changed.status, 303);
    assert.notEqual(browser.cookies.get('haberci_session'), before);
    assert.equal(await h.runtime.store.users.findSession(tokenHash(before)), null);
    assert.match((await browser.get(changed.location ?? '')).body, /Password changed\./);
    assert.equal((await other.get('/panel/account')).status, 303, 'the other session ended');
    const fresh = h.browser('127.0.0.9');
    await fresh.signIn(user.email, 'a-new-password-1');
  });

  it('sets a password through a one-time link, which then no longer works', async () => {
    const made = await valueOf(h.users.create({ accountId: user.accountId, email: 'invited@example.com' }));
    const token = made.set_password_token ?? '';
    const b = h.browser('127.0.0.10');
    const form = await b.get(`/panel/set-password?token=${token}`);
    assert.equal(form.status, 200);
    assert.match(form.body, /<label for="new-password">New password<\/label>/);
    const done = await b.post('/panel/set-password', { token, password: 'invited-password' });
    assert.equal(done.status, 303);
    assert.equal((await b.get(`/panel/set-password?token=${token}`)).status, 410);
    await b.signIn('invited@example.com', 'invited-password');
  });
});
