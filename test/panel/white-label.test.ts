/**
 * The white label in the panel, in process on every dialect: the brand's host answers with
 * the brand and admits only the reseller's users and its customers' (others, the provider's
 * staff too, get the wrong-password answer word for word; a session from elsewhere is none
 * there); the brand page is a reseller's only, checks what it is given (a logo too large,
 * a colour that is none) and audits what it saves; the logo and colours are served on the
 * brand host alone.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { valueOf } from '../helpers/results.js';

type Account = Awaited<ReturnType<PanelHarness['account']>>;

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

/** A multipart form as a browser posts it, with the page's token. */
function multipart(fields: Record<string, string>, logo?: Buffer): { body: Buffer; type: string } {
  const boundary = '----brand-form-boundary';
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (logo) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      logo,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `panel: white label (${dialect.name})`, () => {
    let h: PanelHarness;
    let reseller: Account;
    let customer: Account;
    let otherCustomer: Account;
    let flat: Account;
    const host = 'mavi.example';

    const brandHost = (): PanelBrowser => h.browser('127.0.0.1', { host: `${host}:8080` });
    const postBrand = async (c: PanelBrowser, fields: Record<string, string>, logo?: Buffer) => {
      const form = multipart({ _csrf: c.csrf ?? '', ...fields }, logo);
      return h.app.inject({
        method: 'POST',
        url: '/panel/reseller/brand',
        headers: {
          host,
          'content-type': form.type,
          cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
        payload: form.body,
      });
    };

    before(async () => {
      h = await createPanelHarness(await dialect.location());
      const admin = h.runtime.admin;
      reseller = await h.account('Mavi Bayi');
      const other = await h.account('Kirmizi Bayi');
      flat = await h.account('Flat');
      await valueOf(admin.updateAccount(reseller.accountId, { reseller: true }, {}));
      await valueOf(admin.updateAccount(other.accountId, { reseller: true }, {}));
      const under = async (parentId: number, name: string): Promise<Account> => {
        const made = await valueOf(
          admin.createAccount({
            name,
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
            parentId,
          }),
        );
        const email = `${name.toLowerCase()}@example.com`;
        const password = `password-${name}`;
        const user = await valueOf(h.users.create({ accountId: made.id, email, password }));
        return { accountId: made.id, userId: user.id, email, password };
      };
      customer = await under(reseller.accountId, 'Ayse');
      otherCustomer = await under(other.accountId, 'Burak');
      const brand = await h.runtime.brands.change(
        reseller.accountId,
        { name: 'Mavi SMS', host, color: '#0a7f5c', support: 'destek@mavi.example', logo: png },
        null,
      );
      assert.ok(brand.ok);
    });
    after(() => h.close());

    it('names the brand on its host, and admits only its reseller\u2019s and customers\u2019 users', async () => {
      const c = brandHost();
      const page = await c.get('/panel/sign-in');
      assert.match(page.body, /<title>Sign in · Mavi SMS<\/title>/);
      assert.match(page.body, /Support: destek@mavi\.example/);
      assert.match(page.body, /href="\/panel\/brand\/style\.css\?v=\d+"/);
      assert.doesNotMatch(page.body.replace(/haberci_[a-z]+/g, ''), /haberci/i);
      const wrong = await c.post('/panel/sign-in', { email: customer.email, password: 'not-the-password' });
      assert.equal(wrong.status, 401);
      const refusal = /The email or password is not right\./;
      assert.match(wrong.body, refusal);
      await valueOf(h.users.create({ accountId: null, email: 'staff@example.com', password: 'staff-password-1' }));
      for (const [email, password] of [
        [otherCustomer.email, otherCustomer.password],
        [flat.email, flat.password],
        ['staff@example.com', 'staff-password-1'],
      ] as const) {
        const other = brandHost();
        await other.get('/panel/sign-in');
        const answer = await other.post('/panel/sign-in', { email, password });
        assert.equal(answer.status, 401, email);
        assert.match(answer.body, refusal, email);
      }
      for (const user of [customer, reseller]) {
        const own = brandHost();
        await own.get('/panel/sign-in');
        assert.equal((await own.post('/panel/sign-in', { email: user.email, password: user.password })).status, 303);
        const home = await own.get('/panel/keys');
        assert.equal(home.status, 200);
        assert.doesNotMatch(home.body.replace(/haberci_[a-z]+/g, ''), /haberci/i);
      }
    });

    it('a customer\u2019s set-password link is on the brand host, works there, and signing in lands on the brand', async () => {
      const invited = await valueOf(h.users.create({ accountId: customer.accountId, email: 'cem@example.com' }));
      assert.ok(invited.set_password_token);
      // What `admin user create` prints is built on this host (test/cli/admin-users.test.ts).
      assert.equal(await h.runtime.brands.linkHost(customer.accountId), host);
      assert.equal(await h.runtime.brands.linkHost(flat.accountId), null);
      assert.equal(await h.runtime.brands.linkHost(reseller.accountId), null);
      const link = new URL(
        `https://${host}/panel/set-password?token=${encodeURIComponent(invited.set_password_token)}`,
      );
      const c = h.browser('127.0.0.1', { host: link.host });
      const page = await c.get(`${link.pathname}${link.search}`);
      assert.equal(page.status, 200);
      assert.match(page.body, /<title>Set your password · Mavi SMS<\/title>/);
      assert.doesNotMatch(page.body.replace(/haberci_[a-z]+/g, ''), /haberci/i);
      const set = await c.post('/panel/set-password', {
        token: invited.set_password_token,
        password: 'cem-password-1',
      });
      assert.equal(set.status, 303);
      assert.equal(set.location, '/panel/sign-in?done=password-set');
      const signIn = await c.get(set.location ?? '');
      assert.match(signIn.body, /<title>Sign in · Mavi SMS<\/title>/);
      const signedIn = await c.post('/panel/sign-in', { email: 'cem@example.com', password: 'cem-password-1' });
      assert.equal(signedIn.status, 303);
      // A path on the host the browser is on: the brand's.
      assert.match(signedIn.location ?? '', /^\/panel\//);
      const home = await c.get('/panel/keys');
      assert.equal(home.status, 200);
      assert.match(home.body, /Support: destek@mavi\.example/);
      assert.doesNotMatch(home.body.replace(/haberci_[a-z]+/g, ''), /haberci/i);
      // The link is spent.
      assert.equal((await h.browser('127.0.0.1', { host }).get(`${link.pathname}${link.search}`)).status, 410);
    });

    it('a session opened on the provider\u2019s host is none on the brand host for a user it does not admit', async () => {
      const c = h.browser();
      await c.signIn(flat.email, flat.password);
      const there = await c.get('/panel/keys', { host });
      assert.equal(there.status, 303);
      assert.match(there.location ?? '', /^\/panel\/sign-in/);
    });

    it('serves the logo and colours on the brand host only', async () => {
      const c = brandHost();
      const logo = await c.get('/panel/brand/logo');
      assert.equal(logo.status, 200);
      assert.equal(logo.headers['content-type'], 'image/png');
      assert.match(String(logo.headers['content-security-policy']), /default-src 'none'.*sandbox/);
      const style = await c.get('/panel/brand/style.css');
      assert.match(style.body, /--accent: #0a7f5c/);
      assert.equal((await h.browser().get('/panel/brand/logo')).status, 404);
      assert.equal((await h.browser().get('/panel/brand/style.css')).status, 404);
    });

    it('the brand page is a reseller\u2019s: checks the colour and the logo\u2019s size, saves and audits', async () => {
      const notReseller = brandHost();
      await notReseller.signIn(customer.email, customer.password);
      assert.equal((await notReseller.get('/panel/reseller/brand')).status, 404);
      const c = brandHost();
      await c.signIn(reseller.email, reseller.password);
      const page = await c.get('/panel/reseller/brand');
      assert.equal(page.status, 200);
      assert.match(page.body, /mavi\.example/);
      const badColor = await postBrand(c, { name: 'Mavi SMS', color: 'blue', support: '' });
      assert.equal(badColor.statusCode, 400);
      assert.match(badColor.body, /A colour is # and six hexadecimal digits/);
      const tooLarge = await postBrand(c, { name: 'Mavi SMS', color: '', support: '' }, Buffer.alloc(300 * 1024, 1));
      assert.equal(tooLarge.statusCode, 400);
      assert.match(tooLarge.body, /at most 256 KiB/);
      const notImage = await postBrand(c, { name: 'Mavi SMS', color: '', support: '' }, Buffer.from('GIF89a'));
      assert.equal(notImage.statusCode, 400);
      const noToken = await postBrand(c, { _csrf: 'forged', name: 'Forged', color: '', support: '' });
      assert.equal(noToken.statusCode, 403);
      const saved = await postBrand(c, { name: 'Mavi Mesaj', color: '#1D4ED8', support: '0212 555 00 00' });
      assert.equal(saved.statusCode, 303);
      const brand = await h.runtime.brands.get(reseller.accountId);
      assert.deepEqual(
        [brand?.name, brand?.color, brand?.support, brand?.host, brand?.logoType],
        ['Mavi Mesaj', '#1d4ed8', '0212 555 00 00', host, 'image/png'],
      );
      const rows = await h.runtime.store.audit.search({
        accountId: reseller.accountId,
        action: 'reseller.brand',
        limit: 5,
      });
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.actor, reseller.email);
      // This process's host cache was emptied by the change: the next page shows it.
      assert.match((await c.get('/panel/keys')).body, /Support: 0212 555 00 00/);
    });
  });
}
