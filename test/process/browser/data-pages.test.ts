/**
 * The data pages in a real browser, by role and accessible name: a panel send skips a
 * blocked number (only the other is charged, read back through the API's /balance/) while
 * the API still sends to it; the live counter agrees with what the API charges on tricky
 * texts; a CSV file imported into a group; a campaign's chart drawn with data; every data
 * page shown with data (and, with HABERCI_SCREENSHOTS=1, photographed for docs/panel.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { admin, postJson, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn } from '../../helpers/browser.js';
import { waitFor } from '../../helpers/wait-for.js';

const email = 'browser-data@example.com';
const password = 'correct horse battery';

/** Texts where counting goes wrong easily: table edges, the Turkish shift, the escape table, emoji, line breaks. */
const trickyTexts = [
  'a'.repeat(160),
  'a'.repeat(161),
  'ş'.repeat(155),
  'ş'.repeat(156),
  'Ünlü çağrı: ğüşıöç ĞÜŞİÖÇ',
  'Price: 5€ [tax] {incl} ~ | ^ \\',
  'Merhaba 😀',
  'x'.repeat(65) + '😀',
  `line one\nline two TS-Lthree`,
  'ä'.repeat(300),
  'Ж',
  'e'.repeat(2000),
];
const langOf = { gsm7: 0, turkish: 1, ucs2: 2 } as const;

describe('panel in a browser: data pages', { skip: chromiumSkip }, () => {
  const suite = serverForSuite('Browser Data Pages', 1000);
  let browser: Browser;
  let page: Page;
  let campaignUrl = '';
  /** A script or style the Content-Security-Policy refuses (uPlot's, the counter's) is reported on the console. */
  const consoleErrors: string[] = [];

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
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await signIn(page, suite.server.url, email, password);
  });
  after(async () => {
    await browser.close();
  });

  const balance = async (): Promise<number> =>
    Number((await postJson(`${suite.server.url}/balance/`, { api_key: suite.sender.apiKey })).body.balance_main);

  it('skips a blocked number in a panel send and charges only the other, while /sms/send to it is accepted', async () => {
    const base = suite.server.url;
    await page.goto(`${base}/panel/blocklist`);
    await page.getByLabel('Numbers to block').fill('0555 111 00 01');
    await page.getByRole('button', { name: 'Block numbers' }).click();
    await page.getByRole('heading', { name: '1 added.' }).waitFor();
    await page.getByRole('button', { name: 'Unblock 905551110001' }).waitFor();

    const before = await balance();
    await page.getByRole('link', { name: 'Send SMS' }).click();
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page.getByLabel('Recipients').fill('905551110001, 905551110002');
    await page.getByLabel('Message text').fill('Merhaba');
    await page.getByRole('button', { name: 'Check cost' }).click();
    await page.getByText('1 numbers on your blocking list are skipped and not charged:').waitFor();
    await page.getByText('Cost: 1 SMS').waitFor();
    await screenshot(page, 'send-preview', { fullPage: true });
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForURL(/\/panel\/campaigns\/\d+\?sent=1$/);
    campaignUrl = page.url();
    assert.equal(await balance(), before - 1);

    const api = await postJson(`${base}/sms/send`, {
      api_key: suite.sender.apiKey,
      title: 'ACME',
      text: 'Merhaba',
      sentto: '905551110001',
      sms_lang: 0,
    });
    assert.equal(api.body.result, true, JSON.stringify(api.body));
    assert.equal(await balance(), before - 2);
  });

  it('counts characters, parts and encoding in the browser as the API charges them', async () => {
    await page.goto(`${suite.server.url}/panel/send`);
    const text = page.getByLabel('Message text');
    const counter = page.getByRole('status').filter({ hasText: 'SMS per recipient' });
    for (const sample of trickyTexts) {
      await text.fill(sample);
      const encoding = (await counter.getAttribute('data-encoding')) as keyof typeof langOf;
      const parts = Number(await counter.getAttribute('data-parts'));
      assert.ok(encoding in langOf, `encoding ${encoding}`);
      const before = await balance();
      const api = await postJson(`${suite.server.url}/sms/send`, {
        api_key: suite.sender.apiKey,
        title: 'ACME',
        text: sample,
        sentto: '905551119999',
        sms_lang: langOf[encoding],
      });
      assert.equal(api.body.result, true, JSON.stringify(api.body));
      assert.equal(
        api.body.number_of_sms,
        parts,
        `parts of ${JSON.stringify(sample.slice(0, 20))} (${sample.length} characters, ${encoding})`,
      );
      assert.equal(before - (await balance()), parts);
    }
    await text.fill('Ünlü çağrı');
    assert.match(
      (await counter.innerText()).trim(),
      /^10 characters · 1 SMS per recipient · GSM 7-bit with Turkish characters$/,
    );
  });

  it('imports a CSV file into a group with a report of the rejected rows', async () => {
    await page.goto(`${suite.server.url}/panel/groups`);
    await page.getByLabel('Group name').fill('Browser customers');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { name: 'Group: Browser customers' }).waitFor();
    await page.getByLabel('CSV file').setInputFiles({
      name: 'contacts.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('Ad;Numara\nAli;0532 333 00 01\nVeli;0532 333 00 02\nHatalı;abc\n'),
    });
    await page.waitForFunction(
      () => (document.getElementById('add-csv-text') as HTMLTextAreaElement | null)?.value.includes('Numara') === true,
    );
    await page.getByRole('button', { name: 'Add contacts' }).click();
    await page.getByRole('heading', { name: '2 added.' }).waitFor();
    await page.getByRole('cell', { name: 'not a phone number' }).waitFor();
    // The refused row's line and value beside its reason (kit/csv-fields' RejectedTable).
    const refused = page.getByRole('row').filter({ hasText: 'not a phone number' });
    assert.match((await refused.innerText()).replace(/\s+/g, ' '), /^\d+ abc not a phone number$/);
    await page.getByRole('rowheader', { name: '905323330001' }).waitFor();
    await screenshot(page, 'group-import');
  });

  it('fits every data page on a phone-sized screen, and sends from the keyboard alone', async () => {
    const { context, page: phone } = await newPage(browser, { phone: true });
    await signIn(phone, suite.server.url, email, password);
    for (const path of [
      '/panel/overview',
      '/panel/send',
      '/panel/messages',
      '/panel/campaigns',
      '/panel/groups',
      '/panel/blocklist',
    ]) {
      await phone.goto(`${suite.server.url}${path}`);
      const overflow = await phone.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the screen`);
    }
    // A campaign's and a message's own pages too (the earlier tests sent from the panel).
    for (const [list, what] of [
      ['/panel/campaigns', 'campaign'],
      ['/panel/messages', 'message'],
    ] as const) {
      await phone.goto(`${suite.server.url}${list}`);
      const href = await phone.getByRole('table').getByRole('link').first().getAttribute('href');
      assert.ok(href !== null, `the ${what} list links to a ${what}`);
      await phone.goto(`${suite.server.url}${href}`);
      const overflow = await phone.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      const wide = await phone.evaluate(() =>
        Array.from(document.querySelectorAll('body *'))
          .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth)
          .map((e) => `${e.tagName}.${e.className}:${Math.round(e.getBoundingClientRect().right)}`)
          .slice(0, 8)
          .join(' '),
      );
      assert.ok(overflow <= 0, `a ${what}'s page (${href}) is ${overflow}px wider than the screen: ${wide}`);
    }
    await phone.goto(`${suite.server.url}/panel/send`);
    await phone.getByLabel('Recipients').focus();
    await phone.keyboard.type('905551117777');
    await phone.getByLabel('Message text').focus();
    await phone.keyboard.type('Klavye');
    await phone.getByRole('button', { name: 'Check cost' }).focus();
    await phone.keyboard.press('Enter');
    await phone.getByRole('button', { name: 'Confirm and send' }).focus();
    await phone.keyboard.press('Enter');
    await phone.waitForURL(/\/panel\/campaigns\/\d+\?sent=1$/);
    await context.close();
  });

  it('pauses, resumes and cancels a campaign from its page, the confirmation showing the credit that comes back', async () => {
    const base = suite.server.url;
    const sentto = Array.from({ length: 12 }, (_, i) => `9055522200${String(i).padStart(2, '0')}`);
    const sent = await postJson(`${base}/group/send`, {
      api_key: suite.sender.apiKey,
      title: 'ACME',
      text: 'Kampanya',
      sentto,
      scheduled_sms: 1,
      scheduled_date: '2030-06-01',
      scheduled_time: '10:00',
    });
    assert.equal(sent.body.result, true, JSON.stringify(sent.body));
    const id = Number(sent.body.rapor_id);
    const before = await balance();
    await page.goto(`${base}/panel/campaigns/${id}`);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').filter({ hasText: 'The campaign is paused' }).waitFor();
    assert.equal(await page.locator('#campaign-state').textContent(), 'Paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').filter({ hasText: 'The campaign is sending again.' }).waitFor();
    assert.equal(await page.locator('#campaign-state').textContent(), 'Running');
    await page.getByRole('link', { name: 'Cancel the campaign' }).click();
    await page
      .getByText('12 messages not yet sent will be cancelled and 12 SMS credits will come back to your balance.')
      .waitFor();
    await page.getByRole('button', { name: 'Cancel the campaign' }).click();
    await page.getByRole('status').filter({ hasText: '12 messages cancelled; 12 SMS credits came back.' }).waitFor();
    assert.equal(await page.locator('#campaign-state').textContent(), 'Cancelled');
    assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0, 'a cancelled campaign has no controls');
    assert.equal(await balance(), before + 12);
    const report = await postJson(`${base}/reports/basic`, { api_key: suite.sender.apiKey, raporid: id });
    assert.equal(report.body.cancelled_count, 12, JSON.stringify(report.body));
  });

  it('draws a campaign’s outcome chart with data', async () => {
    assert.notEqual(campaignUrl, '');
    await page.goto(campaignUrl);
    const chart = page.getByRole('img', { name: /^Outcome/ });
    await chart.locator('canvas').waitFor();
    const box = await chart.locator('canvas').boundingBox();
    assert.ok(box && box.width > 0 && box.height > 0, 'the canvas has a size');
    assert.ok(Number(await chart.getAttribute('data-drawn')) > 0, 'the series has points');
    await page.goto(`${suite.server.url}/panel/overview`);
    const daily = page.getByRole('img', { name: 'Sends and delivery rate, last 30 days' });
    await daily.locator('canvas').waitFor();
    assert.equal(await daily.getAttribute('data-drawn'), '30');
    assert.deepEqual(consoleErrors, [], 'no script or style was refused by the Content-Security-Policy');
  });

  it('shows every data page with data: a campaign with its outcomes, the log, a message, the overview, groups and the blocking list', async () => {
    const base = suite.server.url;
    // The simulator's outcome follows the number's last four digits: 0000 failed, 0002 no
    // report (pending), others delivered a moment later (--sim-delay-ms).
    await page.goto(`${base}/panel/send`);
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page
      .getByLabel('Recipients')
      .fill('905551110010\n905551110011\n905551110012\n905551110013\n905551110000\n905551110002');
    await page.getByLabel('Message text').fill('Hafta sonu indirimi: tüm ürünlerde %20, pazar akşamına kadar.');
    await page.getByRole('button', { name: 'Check cost' }).click();
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForURL(/\/panel\/campaigns\/\d+\?sent=1$/);
    const campaign = page.url().replace(/\?sent=1$/, '');
    const progress = page.getByText('5 of 6 finished');
    await waitFor(
      'the campaign page to show 5 of 6 finished',
      async () => {
        if (await progress.isVisible()) return true;
        await page.goto(campaign);
        return false;
      },
      { timeoutMs: 10_000, intervalMs: 250 },
    );
    await progress.waitFor();
    const chart = page.getByRole('img', { name: /^Outcome/ });
    await chart.locator('canvas').waitFor();
    assert.ok(Number(await chart.getAttribute('data-drawn')) > 0, 'the series has points');
    await screenshot(page, 'campaign', { fullPage: true });

    await page.goto(`${base}/panel/campaigns`);
    assert.ok((await page.getByRole('link', { name: /^Campaign \d+$/ }).count()) >= 3, 'the panel sends are campaigns');
    await screenshot(page, 'campaigns');

    await page.goto(`${base}/panel/messages`);
    await page.getByRole('button', { name: 'Search' }).waitFor();
    assert.ok((await page.getByRole('link', { name: /^Message \d+$/ }).count()) > 1, 'the log lists messages');
    await screenshot(page, 'messages');

    await page.getByLabel('Number', { exact: true }).fill('905551110010');
    await page.getByRole('button', { name: 'Search' }).click();
    await page
      .getByRole('link', { name: /^Message \d+$/ })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.getByRole('link', { name: /^Campaign \d+$/ }).waitFor();
    await page.getByText(/^Delivered \(/).waitFor();
    await screenshot(page, 'message');

    await page.goto(`${base}/panel/overview`);
    await page.getByRole('img', { name: 'Sends and delivery rate, last 30 days' }).locator('canvas').waitFor();
    await page.getByRole('heading', { name: 'Latest sends' }).waitFor();
    await screenshot(page, 'overview');

    await page.goto(`${base}/panel/groups`);
    await page.getByLabel('Group name').fill('Newsletter');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { name: 'Group: Newsletter' }).waitFor();
    await page.goto(`${base}/panel/groups`);
    await page.getByRole('link', { name: 'Browser customers' }).waitFor();
    await page.getByRole('link', { name: 'Newsletter' }).waitFor();
    await screenshot(page, 'groups');

    await page.goto(`${base}/panel/blocklist`);
    await page.getByLabel('Numbers to block').fill('0555 111 00 05\n0555 111 00 06');
    await page.getByRole('button', { name: 'Block numbers' }).click();
    await page.getByRole('heading', { name: '2 added.' }).waitFor();
    await page.goto(`${base}/panel/blocklist`);
    for (const n of ['905551110001', '905551110005', '905551110006'])
      await page.getByRole('button', { name: `Unblock ${n}` }).waitFor();
    await screenshot(page, 'blocklist', { fullPage: true });
    assert.deepEqual(consoleErrors, [], 'no script or style was refused by the Content-Security-Policy');
  });
});
