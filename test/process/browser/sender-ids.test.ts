/**
 * The sender-ID request form in a browser (issue 30, item 1): the hint says Turkish letters
 * count as two, ABCDEFGHIŞ (11) is requested and listed pending, ABCDEFGHIJŞ (12) is refused
 * next to the field, by the same domain rule as the admin command and /sms/send.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { admin, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, signIn, unnamedControls } from '../../helpers/browser.js';

describe('panel in a browser: sender IDs with Turkish letters', { skip: chromiumSkip }, () => {
  const suite = serverForSuite('Browser Senders', 10);
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = 'browser-senders@example.com';
  const password = 'browser senders password';

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
    ({ context, page } = await newPage(browser));
    await signIn(page, suite.server.url, email, password);
  });
  after(async () => {
    await context.close();
    await browser.close();
  });

  it('requests ABCDEFGHIŞ (counts 11) and refuses ABCDEFGHIJŞ (counts 12) next to the field', async () => {
    await page.goto(`${suite.server.url}/panel/sender-ids`);
    await page.getByText('Turkish letters (ç ğ ı ö ş ü) counting as two').waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    await page.getByLabel('Sender ID', { exact: true }).fill('ABCDEFGHIŞ');
    await page.getByRole('button', { name: 'Request sender ID' }).click();
    await page.getByText('Requested. It stays pending until the provider approves it.').waitFor();
    await page.getByRole('rowheader', { name: 'ABCDEFGHIŞ' }).waitFor();
    await page.getByLabel('Sender ID', { exact: true }).fill('ABCDEFGHIJŞ');
    await page.getByRole('button', { name: 'Request sender ID' }).click();
    const error = page.locator('#sender-title-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /Turkish letters counting as two/);
    const listed = (
      (await admin(['sender-id', 'list', '--account', suite.sender.accountId, ...suite.store])).sender_ids as {
        title: string;
        status: string;
      }[]
    ).map((s) => [s.title, s.status]);
    assert.deepEqual(listed, [
      ['ACME', 'approved'],
      ['ABCDEFGHIŞ', 'pending'],
    ]);
  });
});
