/**
 * The Consents page and the send form's commercial switch in a real browser, by role and
 * accessible name: a consent added by the form and found by searching its number; a CSV
 * file imported with a bad row reported; the export downloaded; and the send form, with
 * "Commercial message (İYS)" ticked, saying how many recipients lack consent before the
 * customer confirms, then charging only the one with consent (read back through /balance/).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { admin, postJson, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn, unnamedControls } from '../../helpers/browser.js';

const email = 'browser-consents@example.com';
const password = 'correct horse battery';

describe('panel in a browser: consents (İYS)', { skip: chromiumSkip }, () => {
  // Without job threads: nothing is delivered here, and they cost a start seconds of CPU.
  const suite = serverForSuite('Browser Consents', 1000, ['--worker', 'false']);
  let browser: Browser;
  let page: Page;

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
    page = (await newPage(browser)).page;
    await signIn(page, suite.server.url, email, password);
  });
  after(async () => {
    await browser.close();
  });

  it('adds a consent by the form and finds it by its number', async () => {
    await page.goto(`${suite.server.url}/panel/consents`);
    await page.getByRole('link', { name: 'Consents', exact: true }).waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    await page.getByLabel('Number', { exact: true }).fill('0532 777 00 01');
    await page.getByLabel('Status', { exact: true }).selectOption('ONAY');
    await page.getByLabel('Source', { exact: true }).selectOption('HS_WEB');
    await page.getByLabel(/^Consent date/).fill('2026-01-05 09:30:00');
    await page.getByRole('button', { name: 'Add consent' }).click();
    await page.getByText('Recorded: ONAY (BIREYSEL) for 905327770001.').waitFor();
    await page.getByLabel('Search a number').fill('05327770001');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: 'Consents of 905327770001' }).waitFor();
    await page.getByRole('rowheader', { name: 'BIREYSEL' }).waitFor();
    await page.getByRole('cell', { name: 'HS_WEB' }).waitFor();
  });

  it('imports a CSV file with a bad row reported, and exports every record', async () => {
    await page.goto(`${suite.server.url}/panel/consents`);
    await page.getByLabel('CSV file').setInputFiles({
      name: 'consents.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'recipient;status;recipient_type;source;consent_date\n' +
          '0532 777 00 02;RET;BIREYSEL;HS_MESAJ;2026-01-06 10:00:00\n' +
          '0532 777 00 03;ONAY;TACIR;HS_WEB;2026-01-06 10:00:00\n' +
          '0532 777 00 04;ONAY;BIREYSEL;HS_WEB;not a date\n',
      ),
    });
    await page.waitForFunction(
      () =>
        (document.getElementById('consent-csv-text') as HTMLTextAreaElement | null)?.value.includes('recipient') ===
        true,
    );
    await page.getByRole('button', { name: 'Import consents' }).click();
    await page.getByRole('heading', { name: '2 recorded.' }).waitFor();
    await page.getByRole('cell', { name: 'date must be YYYY-MM-DD HH:MM:SS' }).waitFor();
    await screenshot(page, 'consents', { fullPage: true });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export consents (CSV)' }).click(),
    ]);
    const path = await download.path();
    const lines = readFileSync(path, 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    assert.equal(lines[0], 'recipient,recipient_type,status,source,consent_date,sync_state,sync_error');
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(',').slice(0, 3).join(',')),
      ['905327770001,BIREYSEL,ONAY', '905327770002,BIREYSEL,RET', '905327770003,TACIR,ONAY'],
    );
  });

  it('the send form, made commercial, says how many recipients lack consent and charges only the others', async () => {
    const balance = async (): Promise<number> =>
      Number((await postJson(`${suite.server.url}/balance/`, { api_key: suite.sender.apiKey })).body.balance_main);
    await page.getByRole('link', { name: 'Send SMS' }).click();
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page.getByLabel('Recipients').fill('905327770001, 905327770002, 905327770009');
    await page.getByLabel('Message text').fill('ACME: kampanya! RET yazip 3333e gonderin');
    await page.getByRole('checkbox', { name: 'Commercial message (İYS)' }).check();
    await page.getByLabel('Recipient type').selectOption('BIREYSEL');
    await page.getByRole('button', { name: 'Check cost' }).click();
    await page.getByText('2 recipients lack consent (1 without a record, 1 with a RET)').waitFor();
    await page.getByText('Cost: 1 SMS').waitFor();
    await page.getByText('1 recipients will be sent to.').waitFor();
    await screenshot(page, 'send-commercial', { fullPage: true });
    const before = await balance();
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForURL(/\/panel\/campaigns\/\d+\?sent=1$/);
    assert.equal(before - (await balance()), 1);
  });

  it('fits the Consents page on a phone-sized screen', async () => {
    const { context, page: phone } = await newPage(browser, { phone: true });
    await signIn(phone, suite.server.url, email, password);
    await phone.goto(`${suite.server.url}/panel/consents?number=905327770001`);
    await phone.getByRole('heading', { name: 'Consents of 905327770001' }).waitFor();
    const overflow = await phone.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the Consents page is ${overflow}px wider than the screen`);
    await context.close();
  });
});
