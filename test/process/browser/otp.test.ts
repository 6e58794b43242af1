/**
 * The panel's OTP page in a real browser (Debian's Chromium through playwright-core),
 * against a real `serve`: codes sent and verified over HTTP show by day and by destination
 * prefix with their conversion, a refused code among the blocked attempts; the customer
 * changes a key's OTP settings through the form (found by label, as a person would) and the
 * API follows them; every control has a name; the page reads in Turkish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { admin, postJson, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn, unnamedControls } from '../../helpers/browser.js';

describe('panel in a browser: OTP page', { skip: chromiumSkip }, () => {
  const suite = serverForSuite('Browser Otp', 100);
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = 'browser-otp@example.com';
  const password = 'browser otp password';
  const consoleErrors: string[] = [];

  const api = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
    (await postJson(`${suite.server.url}${path}`, { api_key: suite.sender.apiKey, ...body })).body;

  before(async () => {
    browser = await launchBrowser();
    await admin([
      'user',
      'create',
      '--account',
      suite.sender.accountId,
      '--email',
      email,
      '--password',
      password,
      ...suite.store,
    ]);
    await admin([
      'account',
      'topup',
      '--id',
      suite.sender.accountId,
      '--amount',
      '10',
      '--international',
      ...suite.store,
    ]);
    // The provider narrows the key to Türkiye (codes go to every country by default).
    await admin(['key', 'otp', '--id', suite.sender.keyId, '--countries', '90', ...suite.store]);
    // Three codes to 90532, two verified; one to 90542; one refused (+49 is not allowed yet).
    for (let i = 0; i < 3; i += 1) {
      const sent = await api('/otp/send', { mobile: `90532200000${i}` });
      assert.equal(sent.result_code, 'TS-1024', JSON.stringify(sent));
      if (i < 2) assert.equal((await api('/otp/verify', { sms_id: sent.sms_id, code: sent.otp_code })).verified, true);
    }
    assert.equal((await api('/otp/send', { mobile: '905422000000' })).result_code, 'TS-1024');
    assert.equal((await api('/otp/send', { mobile: '4915112345678' })).result_code, 'TS-1094');
    ({ context, page } = await newPage(browser));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await signIn(page, suite.server.url, email, password);
  });
  after(async () => {
    await context.close();
    await browser.close();
  });

  it('shows sent, verified and conversion by prefix and the blocked attempt', async () => {
    await page.getByRole('link', { name: 'OTP', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'One-time passwords' }).waitFor();
    const byPrefix = page.getByRole('region', { name: 'By destination prefix, last 14 days' });
    assert.equal(await byPrefix.getByRole('row', { name: '+90532 3 2 67%' }).count(), 1);
    assert.equal(await byPrefix.getByRole('row', { name: '+90542 1 0 0%' }).count(), 1);
    const blocked = page.getByRole('region', { name: 'Blocked attempts' });
    assert.equal(await blocked.getByRole('row', { name: /country not allowed \+4915112345678/ }).count(), 1);
    assert.match(
      (await page.getByRole('region', { name: 'Held prefixes' }).textContent()) ?? '',
      /No prefix is held\./,
    );
    await screenshot(page, 'otp', { fullPage: true });
    assert.deepEqual(await unnamedControls(page), []);
  });

  it('changes the key\u2019s OTP settings through the form; the API follows them', async () => {
    await page.getByRole('link', { name: `Change OTP settings of key ${suite.sender.keyId}` }).click();
    await page.getByLabel('Countries codes may go to, as calling codes [all]').fill('90,49');
    await page.getByLabel('Code validity in seconds [300]').fill('120');
    assert.deepEqual(await unnamedControls(page), []);
    await screenshot(page, 'otp-settings', { fullPage: true });
    await page.getByRole('button', { name: 'Save OTP settings' }).click();
    await page.getByText('OTP settings saved.').waitFor();
    const row = page.getByRole('row', { name: new RegExp(`^Key ${suite.sender.keyId} `) });
    assert.match((await row.textContent()) ?? '', /120 s.*\+90, \+49/);
    assert.equal((await api('/otp/send', { mobile: '4915112345678' })).result_code, 'TS-1024');
    // A bad value is refused next to its field.
    await page.getByRole('link', { name: `Change OTP settings of key ${suite.sender.keyId}` }).click();
    await page.getByLabel('Wrong tries before a code is dead [5]').fill('99');
    await page.getByRole('button', { name: 'Save OTP settings' }).click();
    await page.getByText('a whole number from 1 to 20').waitFor();
    assert.equal(await page.getByLabel('Wrong tries before a code is dead [5]').getAttribute('aria-invalid'), 'true');
  });

  it('reads in Turkish, and the browser reported no error', async () => {
    await page.goto(`${suite.server.url}/panel/otp`);
    await page.getByRole('link', { name: 'Türkçe' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tek kullanımlık şifreler' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'tr');
    assert.equal(await page.getByRole('heading', { level: 2, name: 'Engellenen denemeler' }).count(), 1);
    await screenshot(page, 'otp-tr', { fullPage: true });
    // The refused form's own 400 is the one expected; nothing else (a blocked script or style).
    assert.deepEqual(
      consoleErrors.filter((e) => !/status of 400/.test(e)),
      [],
    );
  });
});
