import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelHarness } from '../helpers/panel.js';
import { tokenHash } from '../../src/services/panel/users.js';
import { valueOf } from '../helpers/results.js';

describe('panel sign-in', () => {
  let h: PanelHarness;
  before(async () => {
    h = await createPanelHarness({ dialect: 'sqlite', file: ':memory:' }, {}, ['10.0.0.9']);
  });
  after(() => h.close());

  it('shows the sign-in form in English with Email, Password and Sign in, and in Turkish for Accept-Language tr', async () => {
    const en = await h.browser('127.0.0.1', { 'accept-language': 'en' }).get('/panel/sign-in');
    assert.equal(en.status, 200);
    assert.match(en.body, /<label for="email">Email<\/label>/);
    assert.match(en.body, /<label for="password">Password<\/label>/);
    assert.match(en.body, /<button type="submit">Sign in<\/button>/);
    const tr = await h.browser('127.0.0.1', { 'accept-language': 'tr-TR,tr;q=0.9,en;q=0.5' }).get('/panel/sign-in');
    assert.match(tr.body, /<html lang="tr">/);
    assert.match(tr.body, /<label for="email">E-posta<\/label>/);
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const answer = await h.browser().get('/panel/keys');
    assert.equal(answer.status, 303);
    assert.equal(
      answer.location,
      '/panel/sign-in?next=%2Fpanel%2Fkeys',
      'no "session ended" for a browser that had none',
    );
  });

  it('signs in with the right password: an HttpOnly, SameSite=Lax session cookie whose token the store keeps only as a hash', async () => {
    const a = await h.account('Sign In One');
    const b = h.browser();
    await b.get('/panel/sign-in');
    const answer = await b.post('/panel/sign-in', {
      email: a.email.toUpperCase(),
      password: a.password,
      next: '/panel/keys',
    });
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/panel/keys');
    const line = [answer.headers['set-cookie']]
      .flat()
      .find((c) => typeof c === 'string' && c.startsWith('haberci_session='));
    assert.ok(typeof line === 'string');
    assert.match(line, /HttpOnly/);
    assert.match(line, /SameSite=Lax/);
    assert.match(line, /Path=\/panel/);
    assert.doesNotMatch(line, /Secure/);
    const token = b.cookies.get('haberci_session') ?? '';
    assert.equal(await h.runtime.store.users.findSession(token), null);
    assert.notEqual(await h.runtime.store.users.findSession(tokenHash(token)), null);
    const page = await b.get('/panel/keys');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>API keys<\/h1>/);
  });

  it('refuses a wrong password with a message next to the field, and an unknown email the same way', async () => {
    const a = await h.account('Sign In Two');
    const b = h.browser('127.0.0.2');
    await b.get('/panel/sign-in');
    const wrong = await b.post('/panel/sign-in', { email: a.email, password: 'not the password' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /id="sign-in-error"[^>]*>Error: The email or password is not right\./);
    assert.match(wrong.body, /aria-describedby="sign-in-error"/);
    const unknown = await b.post('/panel/sign-in', { email: 'nobody@example.com', password: 'whatever-else' });
    assert.equal(unknown.status, 401);
    assert.equal(b.cookies.has('haberci_session'), false);
  });

  it('refuses a sign-in form without its token (403), signing nobody in', async () => {
    const a = await h.account('Sign In Three');
    const b = h.browser('127.0.0.3');
    await b.get('/panel/sign-in');
    const missing = await b.post('/panel/sign-in', { email: a.email, password: a.password }, null);
    assert.equal(missing.status, 403);
    const wrong = await b.post('/panel/sign-in', { email: a.email, password: a.password }, 'x'.repeat(32));
    assert.equal(wrong.status, 403);
    assert.equal(b.cookies.has('haberci_session'), false);
  });

  it('limits failed sign-ins per user: after five, even the right password is refused with a clear message', async () => {
    const a = await h.account('Sign In Four');
    for (let i = 0; i < 5; i += 1) {
      const b = h.browser(`127.0.1.${i}`);
      await b.get('/panel/sign-in');
      assert.equal((await b.post('/panel/sign-in', { email: a.email, password: `wrong-${i}-password` })).status, 401);
    }
    const b = h.browser('127.0.1.99');
    await b.get('/panel/sign-in');
    const limited = await b.post('/panel/sign-in', { email: a.email, password: a.password });
    assert.equal(limited.status, 429);
    assert.match(limited.body, /Too many failed sign-ins\. Try again in 15 minutes\./);
    h.clock.advance(15 * 60_000 + 1);
    const later = await b.post('/panel/sign-in', { email: a.email, password: a.password });
    assert.equal(later.status, 303);
  });

  it('limits failed sign-ins per address, whatever the emails', async () => {
    const a = await h.account('Sign In Five');
    const b = h.browser('127.0.2.1');
    await b.get('/panel/sign-in');
    for (let i = 0; i < 20; i += 1)
      await b.post('/panel/sign-in', { email: `someone-${i}@example.com`, password: 'guess-guess' });
    const limited = await b.post('/panel/sign-in', { email: a.email, password: a.password });
    assert.equal(limited.status, 429);
    const elsewhere = h.browser('127.0.2.2');
    await elsewhere.get('/panel/sign-in');
    assert.equal((await elsewhere.post('/panel/sign-in', { email: a.email, password: a.password })).status, 303);
  });

  it('ends a session after two idle hours, and twelve hours after sign-in however busy', async () => {
    const a = await h.account('Sign In Six');
    const b = h.browser();
    await b.signIn(a.email, a.password);
    h.clock.advance(2 * 3600_000);
    const idle = await b.get('/panel/keys');
    assert.equal(idle.status, 303);
    assert.equal(idle.location, '/panel/sign-in?next=%2Fpanel%2Fkeys&done=expired');
    assert.match((await b.get(idle.location ?? '')).body, /Your session ended\. Sign in again\./);

    await b.signIn(a.email, a.password);
    for (let i = 0; i < 11; i += 1) {
      h.clock.advance(3600_000);
      assert.equal((await b.get('/panel/keys')).status, 200, `hour ${i + 1}`);
    }
    h.clock.advance(3600_000);
    assert.equal((await b.get('/panel/keys')).status, 303);
  });

  it('signs out (the session is gone from the store), and refuses a sign-out without its token', async () => {
    const a = await h.account('Sign In Seven');
    const b = h.browser();
    await b.signIn(a.email, a.password);
    const token = b.cookies.get('haberci_session') ?? '';
    assert.equal((await b.post('/panel/sign-out', {}, null)).status, 403);
    assert.equal((await b.post('/panel/sign-out', {}, 'wrong-token-wrong-token-wrong')).status, 403);
    assert.notEqual(await h.runtime.store.users.findSession(tokenHash(token)), null);
    const out = await b.post('/panel/sign-out');
    assert.equal(out.status, 303);
    assert.equal(await h.runtime.store.users.findSession(tokenHash(token)), null);
    assert.equal((await b.get('/panel/keys')).status, 303);
  });

  it('signs out everywhere: every browser of the user is signed out', async () => {
    const a = await h.account('Sign In Eight');
    const one = h.browser();
    const two = h.browser('127.0.3.2');
    await one.signIn(a.email, a.password);
    await two.signIn(a.email, a.password);
    assert.equal((await one.post('/panel/sign-out-everywhere')).status, 303);
    assert.equal((await two.get('/panel/keys')).status, 303);
    assert.equal((await one.get('/panel/keys')).status, 303);
  });

  it('signs a disabled user out at once and refuses their sign-in; a reset password stops working', async () => {
    const a = await h.account('Sign In Ten');
    const b = h.browser('127.0.5.1');
    await b.signIn(a.email, a.password);
    await valueOf(h.users.resetPassword(a.userId));
    assert.equal((await b.get('/panel/keys')).status, 303, 'a reset ends the sessions');
    await b.get('/panel/sign-in');
    assert.equal(
      (await b.post('/panel/sign-in', { email: a.email, password: a.password })).status,
      401,
      'the old password no longer works',
    );
    const c = await h.account('Sign In Eleven');
    const d = h.browser('127.0.5.2');
    await d.signIn(c.email, c.password);
    await valueOf(h.users.disable(c.userId));
    assert.equal((await d.get('/panel/keys')).status, 303);
    await d.get('/panel/sign-in');
    assert.equal((await d.post('/panel/sign-in', { email: c.email, password: c.password })).status, 401);
  });

  it('marks the cookie Secure behind a trusted proxy that says the request came over TLS', async () => {
    const a = await h.account('Sign In Nine');
    const b = h.browser('10.0.0.9', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' });
    await b.get('/panel/sign-in');
    const answer = await b.post('/panel/sign-in', { email: a.email, password: a.password });
    const line = [answer.headers['set-cookie']]
      .flat()
      .find((c) => typeof c === 'string' && c.startsWith('haberci_session='));
    assert.match(String(line), /Secure/);
    // An untrusted peer saying so is not believed.
    const c = h.browser('127.0.4.1', { 'x-forwarded-proto': 'https' });
    await c.get('/panel/sign-in');
    const plain = await c.post('/panel/sign-in', { email: a.email, password: a.password });
    const plainLine = [plain.headers['set-cookie']]
      .flat()
      .find((x) => typeof x === 'string' && x.startsWith('haberci_session='));
    assert.doesNotMatch(String(plainLine), /Secure/);
  });

  it('answers every page with a strict Content-Security-Policy and no framing, and unknown panel paths with an HTML 404', async () => {
    const page = await h.browser().get('/panel/sign-in');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.doesNotMatch(page.body, /<script>|<script [^>]*>[^<]+<\/script>|style="/);
    const missing = await h.browser().get('/panel/no-such-page');
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['content-type']), /text\/html/);
    assert.match(missing.body, /Page not found/);
  });

  it('switches language with a cookie, and only ever redirects back into the panel', async () => {
    const b = h.browser('127.0.0.1', { 'accept-language': 'en' });
    const sw = await b.get('/panel/lang/tr?next=%2Fpanel%2Fsign-in');
    assert.equal(sw.status, 303);
    assert.equal(sw.location, '/panel/sign-in');
    assert.match((await b.get('/panel/sign-in')).body, /<html lang="tr">/);
    const away = await b.get('/panel/lang/en?next=https%3A%2F%2Fevil.example%2F');
    assert.equal(away.location, '/panel/');
    const away2 = await b.get('/panel/lang/en?next=%2F%2Fevil.example%2F');
    assert.equal(away2.location, '/panel/');
    const away3 = await b.get('/panel/lang/en?next=%2Fpanel%2F..%2F%2Fevil.example%2F');
    assert.equal(away3.location, '/panel/');
    // The links keep the page's query, so a switch returns to the same view.
    assert.match(
      (await b.get('/panel/sign-in?done=signed-out')).body,
      /href="\/panel\/lang\/en\?next=%2Fpanel%2Fsign-in%3Fdone%3Dsigned-out"/,
    );
  });

  it('sends a next with a CR, an LF or U+3002 to the panel\u2019s home from every place that takes one, never a 500', async () => {
    const unsafe = [
      '/panel/keys\r\nSet-Cookie: stolen=1',
      '/panel/keys\rX',
      '/panel/keys\nX',
      '/panel/\u3002evil.example/',
      '/panel/keys\u3002',
      '/panel/keys\u2028',
    ];
    const user = await h.account('Next Paths');
    const signedIn = h.browser();
    await signedIn.signIn(user.email, user.password);
    for (const next of unsafe) {
      const q = encodeURIComponent(next);
      const lang = await h.browser().get(`/panel/lang/en?next=${q}`);
      const form = await signedIn.get(`/panel/sign-in?next=${q}`);
      const b = h.browser();
      await b.get('/panel/sign-in');
      const posted = await b.post('/panel/sign-in', { email: user.email, password: user.password, next });
      for (const [where, answer] of [
        ['language link', lang],
        ['sign-in page', form],
        ['sign-in form', posted],
      ] as const) {
        assert.equal(answer.status, 303, `${where} ${JSON.stringify(next)}: ${answer.status}`);
        assert.equal(answer.location, '/panel/', `${where} ${JSON.stringify(next)}`);
        assert.doesNotMatch(String(answer.headers['set-cookie'] ?? ''), /stolen/);
      }
    }
  });

  it('serves htmx and its own CSS from the package', async () => {
    const js = await h.browser().get('/panel/assets/htmx.min.js');
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /javascript/);
    assert.ok(js.body.length > 10_000);
    const css = await h.browser().get('/panel/assets/panel.css');
    assert.equal(css.status, 200);
    assert.equal((await h.browser().get('/panel/assets/nothing.js')).status, 404);
  });
});
