/**
 * The panel's OTP page, on both stores: codes sent and verified by day and by destination
 * prefix (sent and verified through the API), the conversion watch's held prefixes, the
 * blocked attempts, and each key's OTP settings, which the customer changes (audited; the
 * API follows them at once) and whose bad values are refused; another account's key is not
 * found. In English and in Turkish. The provider console lists the holds and releases one
 * (audited): the API sends to the prefix again; a customer cannot.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelBrowser, PanelHarness } from '../helpers/panel.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import { noOtpSettings } from '../../src/domain/otp-guard.js';
import { valueOf } from '../helpers/results.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `panel OTP page (${dialect.name})`, () => {
    let h: PanelHarness;
    let a: PanelBrowser;
    let user = { accountId: 0, userId: 0, email: '', password: '' };
    let key = { id: 0, api_key: '' };
    let otherKey = 0;

    const api = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const response = await h.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      return JSON.parse(response.body) as Record<string, unknown>;
    };

    before(async () => {
      h = await createPanelHarness(await dialect.location(), { idleMs: 1e12, absoluteMs: 1e12 });
      user = await h.account('Otp Page');
      key = await valueOf(h.runtime.admin.createKey(user.accountId, defaultKeySettings));
      await valueOf(h.runtime.admin.topup(user.accountId, 10, true));
      const other = await h.account('Otp Other');
      otherKey = (await valueOf(h.runtime.admin.createKey(other.accountId, defaultKeySettings))).id;
      // The provider narrows the account to +90 and +49, and the key to +90.
      await h.runtime.store.otp.saveAccountCountries(user.accountId, ['90', '49'], h.clock.now());
      await h.runtime.store.otp.saveSettings(key.id, { ...noOtpSettings, countries: ['90'] }, h.clock.now());
      // Four codes to 90532, three verified; one to 90542, not verified; one refused (+49).
      for (let i = 0; i < 4; i += 1) {
        const sent = await api('/otp/send', { api_key: key.api_key, mobile: `90532100000${i}` });
        assert.equal(sent.result_code, 'TS-1024', JSON.stringify(sent));
        if (i < 3) {
          const checked = await api('/otp/verify', { api_key: key.api_key, sms_id: sent.sms_id, code: sent.otp_code });
          assert.equal(checked.verified, true);
        }
      }
      assert.equal((await api('/otp/send', { api_key: key.api_key, mobile: '905421000000' })).result_code, 'TS-1024');
      assert.equal((await api('/otp/send', { api_key: key.api_key, mobile: '4915112345678' })).result_code, 'TS-1094');
      await h.runtime.store.otp.hold(
        { keyId: key.id, accountId: user.accountId, prefix: '90555', sent: 30, verified: 1, previousSent: 2 },
        h.clock.now(),
      );
      a = h.browser('127.0.0.1', { 'accept-language': 'en' });
      await a.signIn(user.email, user.password);
    });
    after(async () => {
      await h.close();
    });

    it('shows sent, verified and conversion by day and by prefix, the held prefix and the blocked attempt', async () => {
      const page = await a.get('/panel/otp');
      assert.equal(page.status, 200, page.body);
      assert.match(page.body, /<h1[^>]*>One-time passwords<\/h1>/);
      assert.match(page.body, /<a [^>]*href="\/panel\/otp"[^>]*>OTP<\/a>/, 'in the menu');
      // Today (15 Mar 2026 in Istanbul): 5 sent, 3 verified.
      assert.match(
        page.body,
        /<th scope="row"[^>]*>2026-03-15<\/th><td[^>]*>5<\/td><td[^>]*>3<\/td><td[^>]*>60%<\/td>/,
      );
      assert.match(page.body, /<th scope="row"[^>]*>2026-03-14<\/th><td[^>]*>0<\/td><td[^>]*>0<\/td><td[^>]*>–<\/td>/);
      assert.match(page.body, /<th scope="row"[^>]*>\+90532<\/th><td[^>]*>4<\/td><td[^>]*>3<\/td><td[^>]*>75%<\/td>/);
      assert.match(page.body, /<th scope="row"[^>]*>\+90542<\/th><td[^>]*>1<\/td><td[^>]*>0<\/td><td[^>]*>0%<\/td>/);
      assert.match(page.body, /\+90555[^]*1 of 30 codes verified \(3%\)/);
      assert.match(page.body, /country not allowed<\/td><td[^>]*>\+4915112345678</);
      assert.match(
        page.body,
        new RegExp(`href="/panel/otp/keys/${key.id}"[^>]*>Change OTP settings of key ${key.id}<`),
      );
      assert.match(page.body, /300 s/);
      assert.match(page.body, /hold under 20% verified, from 20 codes, volume ×2/);
      assert.match(page.body, /a prefix above 1000 codes a minute at most ×10 its usual rate/);
      assert.match(page.body, /Your provider allows codes to \+90, \+49 only/);
    });

    it('changes a key\u2019s OTP settings (audited) and the API follows them; bad values are refused', async () => {
      const form = await a.get(`/panel/otp/keys/${key.id}`);
      assert.equal(form.status, 200, form.body);
      assert.match(
        form.body,
        /<label for="otp-countries">Countries codes may go to, as calling codes \[all\]<\/label>/,
      );
      const bad = await a.post(`/panel/otp/keys/${key.id}`, { validity: '10', countries: 'DE' });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /a whole number from 30 to 3600/);
      assert.match(bad.body, /calling codes such as 90,49/);
      assert.equal((await h.runtime.store.otp.settingsOf(key.id)).validitySeconds, null, 'nothing saved');
      const saved = await a.post(`/panel/otp/keys/${key.id}`, { validity: '120', countries: '90, 49', cooldown: '30' });
      assert.equal(saved.status, 303, saved.body);
      assert.equal(saved.location, '/panel/otp?done=saved');
      const settings = await h.runtime.store.otp.settingsOf(key.id);
      assert.deepEqual(
        [settings.validitySeconds, settings.countries, settings.cooldownSeconds, settings.maxTries],
        [120, ['90', '49'], 30, null],
      );
      assert.equal((await api('/otp/send', { api_key: key.api_key, mobile: '4915112345678' })).result_code, 'TS-1024');
      // The key's countries cannot widen the account's (the provider's).
      await a.get(`/panel/otp/keys/${key.id}`);
      assert.equal((await a.post(`/panel/otp/keys/${key.id}`, { countries: '90,49,44' })).status, 303);
      const beyond = await api('/otp/send', { api_key: key.api_key, mobile: '447700900123' });
      assert.equal(beyond.result_code, 'TS-1094', JSON.stringify(beyond));
      assert.match(String(beyond.result_message), /This account may not send codes to \+44 numbers/);
      const audit = await h.runtime.store.audit.search({ accountId: user.accountId, limit: 100 });
      assert.equal(audit.filter((r) => r.action === 'key.otp').length, 2);
      const shown = await a.get('/panel/otp?done=saved');
      assert.match(shown.body, /OTP settings saved\./);
      assert.match(shown.body, /\+90, \+49, \+44/);
      // Emptied fields go back to their defaults.
      await a.get(`/panel/otp/keys/${key.id}`);
      assert.equal((await a.post(`/panel/otp/keys/${key.id}`, { validity: '', countries: '' })).status, 303);
      assert.deepEqual((await h.runtime.store.otp.settingsOf(key.id)).countries, null);
      // Another account's key is not there.
      assert.equal((await a.get(`/panel/otp/keys/${otherKey}`)).status, 404);
      await a.get(`/panel/otp/keys/${key.id}`);
      assert.equal((await a.post(`/panel/otp/keys/${otherKey}`, { validity: '60' })).status, 404);
      assert.equal((await h.runtime.store.otp.settingsOf(otherKey)).validitySeconds, null);
    });

    it('lists the holds in the provider console and releases one (audited); a customer cannot', async () => {
      await valueOf(
        h.users.create({ accountId: null, email: 'otp-staff@provider.example', password: 'provider-password-otp' }),
      );
      const p = h.browser('198.51.100.7', { 'accept-language': 'en' });
      await p.get('/panel/sign-in');
      await p.post('/panel/sign-in', { email: 'otp-staff@provider.example', password: 'provider-password-otp' });
      const page = await p.get('/panel/provider/otp-holds');
      assert.equal(page.status, 200, page.body);
      assert.match(page.body, /<a href="\/panel\/provider\/otp-holds"[^>]*>OTP holds<\/a>/, 'in the console menu');
      assert.match(page.body, /\+90555[^]*1 of 30 codes verified \(3%\); 2 the hour before/);
      assert.match(page.body, new RegExp(`>Release \\+90555 for key ${key.id}<`));
      assert.equal(
        (await api('/otp/send', { api_key: key.api_key, mobile: '905551234567' })).result_code,
        'TS-1096',
        'held',
      );
      // A customer reaches neither the page nor the action.
      assert.equal((await a.get('/panel/provider/otp-holds')).status, 404);
      await a.get('/panel/otp');
      assert.equal(
        (await a.post('/panel/provider/otp-holds/release', { key: String(key.id), prefix: '90555' })).status,
        404,
      );
      const released = await p.post('/panel/provider/otp-holds/release', { key: String(key.id), prefix: '90555' });
      assert.equal(released.status, 303, released.body);
      assert.equal(released.location, '/panel/provider/otp-holds?released=90555');
      assert.match((await p.get(released.location ?? '')).body, /Released \+90555\.[^]*No prefix is held\./);
      assert.equal((await api('/otp/send', { api_key: key.api_key, mobile: '905551234567' })).result_code, 'TS-1024');
      const audit = await h.runtime.store.audit.search({ accountId: user.accountId, limit: 100 });
      assert.equal(audit.filter((r) => r.action === 'otp.release').length, 1);
      // Nothing stands any more: a second release is not found.
      await p.get('/panel/provider/otp-holds');
      assert.equal(
        (await p.post('/panel/provider/otp-holds/release', { key: String(key.id), prefix: '90555' })).status,
        404,
      );
      // The customer's page no longer lists it.
      assert.match((await a.get('/panel/otp')).body, /No prefix is held\./);
    });

    it('is in Turkish for a Turkish browser', async () => {
      const tr = h.browser('127.0.0.1', { 'accept-language': 'tr' });
      await tr.signIn(user.email, user.password);
      const page = await tr.get('/panel/otp');
      assert.match(page.body, /<h1[^>]*>Tek kullanımlık şifreler<\/h1>/);
      assert.match(page.body, /Durdurulan önekler/);
      assert.match(page.body, /Durdurulan önek yok\./);
      assert.match(page.body, /ülkeye izin yok/);
      const form = await tr.get(`/panel/otp/keys/${key.id}`);
      assert.match(form.body, /OTP ayarlarını kaydet/);
    });
  });
}
