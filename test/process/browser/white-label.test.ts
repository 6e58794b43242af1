/**
 * The white label in a real browser, on the brand's own host name (Chromium maps the names
 * to 127.0.0.1, so the server sees them in the Host header): the sign-in page shows the
 * reseller's brand and nothing of the provider's name; the reseller's customer signs in;
 * another reseller's customer and a flat account's user get the wrong-password answer;
 * the logo is served, with a policy that runs nothing in it; and the reseller sets its
 * brand from its own panel page, which its customers then see.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { admin, serverForSuite } from '../../helpers/server-process.js';
import { chromiumPath, chromiumSkip, screenshot } from '../../helpers/browser.js';

const password = 'correct horse battery';
/** A valid 1x1 PNG: the browser must be able to draw it. */
const png = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154789c63e08e590b00018a011501f2abd80000000049454e44ae426082',
  'hex',
);
const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#a11"/></svg>';

describe('panel in a browser: white label', { skip: chromiumSkip }, () => {
  const suite = serverForSuite('Provider Flat Customer', 10);
  let browser: Browser;
  let files = '';
  const port = (): string => new URL(suite.server.url).port;
  const mavi = (): string => `http://mavi.example:${port()}`;
  const kirmizi = (): string => `http://kirmizi.example:${port()}`;

  const user = async (accountId: string, email: string): Promise<void> => {
    await admin(['user', 'create', '--account', accountId, '--email', email, '--password', password, ...suite.store]);
  };
  const reseller = async (name: string, host: string, customer: string): Promise<string> => {
    const id = String((await admin(['account', 'create', '--name', name, ...suite.store])).id);
    await admin(['account', 'update', '--id', id, '--reseller', 'true', ...suite.store]);
    const child = String((await admin(['account', 'create', '--name', customer, '--parent', id, ...suite.store])).id);
    await user(child, `${customer.toLowerCase()}@example.com`);
    await admin(['reseller', 'brand', '--account', id, '--host', host, ...suite.store]);
    return id;
  };

  before(async () => {
    files = mkdtempSync(join(tmpdir(), 'haberci-brand-'));
    writeFileSync(join(files, 'logo.png'), png);
    writeFileSync(join(files, 'logo.svg'), svg);
    const maviId = await reseller('Mavi Bayi', 'mavi.example', 'Ayse');
    await user(maviId, 'bayi@mavi.example');
    await admin([
      'reseller',
      'brand',
      '--account',
      maviId,
      '--name',
      'Mavi SMS',
      '--color',
      '#0a7f5c',
      '--support',
      'destek@mavi.example',
      '--logo',
      join(files, 'logo.png'),
      ...suite.store,
    ]);
    await reseller('Kirmizi Bayi', 'kirmizi.example', 'Burak');
    await user(suite.sender.accountId, 'flat@example.com');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--host-resolver-rules=MAP mavi.example 127.0.0.1, MAP kirmizi.example 127.0.0.1'],
    });
  });
  after(async () => {
    await browser.close();
    rmSync(files, { recursive: true, force: true });
  });

  const freshPage = async (): Promise<Page> =>
    (await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } })).newPage();

  const trySignIn = async (page: Page, base: string, email: string): Promise<void> => {
    await page.goto(`${base}/panel/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('the sign-in page on the brand host shows the brand (name, logo drawn, colour, support) and no provider name', async () => {
    const page = await freshPage();
    await page.goto(`${mavi()}/panel/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(await page.title(), 'Sign in · Mavi SMS');
    assert.equal(await page.getByRole('link', { name: 'Mavi SMS' }).count(), 1);
    await page.getByText('Support: destek@mavi.example').waitFor();
    const logo = page.locator('header img');
    await logo.waitFor();
    assert.ok(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1));
    // The brand's colour reached the page through its stylesheet (the CSP allows no inline style).
    const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent'));
    assert.equal(accent.trim(), '#0a7f5c');
    const text = `${await page.title()} ${await page.locator('body').innerText()}`;
    assert.doesNotMatch(text, /haberci/i);
    await screenshot(page, 'white-label-sign-in');
    // The provider's own host is the provider's panel, named as ever.
    await page.goto(`${suite.server.url}/panel/sign-in`);
    assert.equal(await page.title(), 'Sign in · haberci');
    await page.context().close();
  });

  it('serves the logo on the brand host with a policy that runs nothing, and none on the provider host', async () => {
    const page = await freshPage();
    // Opened on its own, as a person (or a crafted link) would: Chromium resolves the brand host.
    const logo = await page.goto(`${mavi()}/panel/brand/logo`);
    assert.equal(logo?.status(), 200);
    assert.equal(logo?.headers()['content-type'], 'image/png');
    assert.match(logo?.headers()['content-security-policy'] ?? '', /default-src 'none'.*sandbox/);
    assert.deepEqual(Buffer.from((await logo?.body()) ?? ''), png);
    assert.equal((await page.goto(`${suite.server.url}/panel/brand/logo`))?.status(), 404);
    assert.equal((await page.goto(`${kirmizi()}/panel/brand/logo`))?.status(), 404);
    await page.context().close();
  });

  it("signs in the reseller's customer on its host; another brand's customer and a flat account's user get the wrong-password answer", async () => {
    const page = await freshPage();
    await trySignIn(page, mavi(), 'ayse@example.com');
    await page.waitForURL(/\/panel\/keys/);
    assert.equal(await page.getByRole('link', { name: 'Mavi SMS' }).count(), 1);
    assert.doesNotMatch(await page.locator('body').innerText(), /haberci/i);
    await page.context().close();
    for (const email of ['burak@example.com', 'flat@example.com']) {
      const other = await freshPage();
      await trySignIn(other, mavi(), email);
      await other.getByText('The email or password is not right.').waitFor();
      assert.match(other.url(), /\/panel\/sign-in/);
      await other.context().close();
    }
    // The other brand's customer signs in on its own brand's host, and everyone on the provider's.
    const own = await freshPage();
    await trySignIn(own, kirmizi(), 'burak@example.com');
    await own.waitForURL(/\/panel\/keys/);
    await own.context().close();
    const provider = await freshPage();
    await trySignIn(provider, suite.server.url, 'ayse@example.com');
    await provider.waitForURL(/\/panel\/keys/);
    await provider.context().close();
  });

  it('the reseller sets its colour, support and logo on its brand page; a customer of another account finds no such page', async () => {
    const page = await freshPage();
    await trySignIn(page, mavi(), 'bayi@mavi.example');
    await page.waitForURL(/\/panel\/keys/);
    await page.goto(`${mavi()}/panel/reseller/brand`);
    await page.getByRole('heading', { level: 1, name: 'Your brand' }).waitFor();
    await page.getByText('mavi.example', { exact: true }).waitFor();
    await page.getByLabel('Colour').fill('blue');
    await page.getByRole('button', { name: 'Save the brand' }).click();
    // The browser's own check (pattern) stops the form first; without it the server answers the same.
    assert.equal(await page.getByLabel('Colour').evaluate((el: HTMLInputElement) => el.validity.valid), false);
    await page.getByLabel('Colour').fill('#1d4ed8');
    await page.getByLabel('Support contact').fill('0212 555 00 00');
    await page.getByLabel('Logo', { exact: true }).setInputFiles(join(files, 'logo.svg'));
    await page.getByRole('button', { name: 'Save the brand' }).click();
    await page.getByText('The brand is saved.').waitFor();
    await page.getByText('Support: 0212 555 00 00').waitFor();
    await screenshot(page, 'white-label-brand-page');
    const logo = await page.goto(`${mavi()}/panel/brand/logo`);
    assert.equal(logo?.headers()['content-type'], 'image/svg+xml');
    assert.match(logo?.headers()['content-security-policy'] ?? '', /sandbox/);
    await page.context().close();

    const customer = await freshPage();
    await trySignIn(customer, mavi(), 'ayse@example.com');
    await customer.waitForURL(/\/panel\/keys/);
    await customer.getByText('Support: 0212 555 00 00').waitFor();
    const response = await customer.goto(`${mavi()}/panel/reseller/brand`);
    assert.equal(response?.status(), 404);
    await customer.context().close();
  });
});
