/**
 * The campaign tools of the customer panel in a real browser: a send page's window, speed
 * and validity land on the send (read back from the store); a template made on the
 * Templates page is sent with a CSV's columns (its texts and its cost those of the filled
 * texts); a short link followed shows as a click on the campaign page, with its chart; the
 * send defaults saved on the account page are stored and prefill the send page.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { admin, postJson, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, signIn } from '../../helpers/browser.js';
import { waitFor } from '../../helpers/wait-for.js';

const email = 'browser-campaign@example.com';
const password = 'correct horse battery';

describe('panel in a browser: campaign tools', { skip: chromiumSkip }, () => {
  const suite = serverForSuite('Browser Campaign Tools', 1000, ['--short-link-base', 'http://s.example/l']);
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

  /** Rows of the server's store (a writable connection: a read-only one cannot read a WAL store another process writes). */
  function query<T>(text: string, ...params: (string | number)[]): T[] {
    const db = new BetterSqlite3(join(suite.store[1] ?? '', 'haberci.sqlite'), { fileMustExist: true });
    try {
      return db.prepare(text).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  const balance = async (): Promise<number> =>
    Number((await postJson(`${suite.server.url}/balance/`, { api_key: suite.sender.apiKey })).body.balance_main);

  async function confirmSend(): Promise<number> {
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForURL(/\/panel\/campaigns\/\d+\?sent=1$/);
    return Number(/campaigns\/(\d+)/.exec(page.url())?.[1]);
  }

  it('a send window, speed and validity set on the send page are the send’s; a window of no length is refused on its field', async () => {
    await page.goto(`${suite.server.url}/panel/send`);
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page.getByLabel('Recipients').fill('905551120001, 905551120002');
    await page.getByLabel('Message text').fill('Kontrollü gönderim');
    // The same time twice is no window: refused on its field (the browser's own checks let it through).
    await page.getByLabel('Send window from (HH:MM, Istanbul)').fill('08:00');
    await page.getByLabel('Send window to (HH:MM)').fill('08:00');
    await page.getByLabel('Speed (messages a minute)').fill('60');
    await page.getByLabel('Validity (minutes, 1 to 2880)').fill('90');
    await page.getByRole('button', { name: 'Check cost' }).click();
    await page.getByText('Give both times as HH:MM (different) and tick at least one day.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Confirm and send' }).count(), 0);

    await page.getByLabel('Send window to (HH:MM)').fill('20:00');
    await page.getByRole('button', { name: 'Check cost' }).click();
    await page.getByText('Delivery controls: window 08:00–20:00').waitFor();
    const id = await confirmSend();
    const [send] = query<{ send_window: string; speed: number; valid_until: number; created_at: number }>(
      'SELECT send_window, speed, valid_until, created_at FROM sends WHERE id = ?',
      id,
    );
    assert.deepEqual(JSON.parse(send?.send_window ?? 'null'), { from: 480, to: 1200, days: [1, 2, 3, 4, 5, 6, 7] });
    assert.equal(send?.speed, 60);
    // Valid 90 minutes from its acceptance (the same request: its row's time and its validity's start differ by that request's run at most).
    const validFor = (send?.valid_until ?? 0) - (send?.created_at ?? 0);
    assert.ok(Math.abs(validFor - 90 * 60_000) < 60_000, `valid for ${validFor} ms`);
  });

  it('a template made on the Templates page is sent with a CSV’s columns, charged for the filled texts', async () => {
    await page.goto(`${suite.server.url}/panel/templates`);
    await page.getByLabel('Template name').fill('Karşılama');
    await page.getByLabel('Template text').fill('Merhaba {{ad}}, kodunuz {{kod}}. ' + 'x'.repeat(120));
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('The template was saved.').waitFor();
    await page.getByRole('rowheader', { name: 'Karşılama' }).waitFor();

    // A contact's fields fill it for a group send.
    const group = await postJson(`${suite.server.url}/groups/create`, { api_key: suite.sender.apiKey, name: 'Alanlı' });
    const groupId = (group.body.group as { id: number }).id;
    await postJson(`${suite.server.url}/contacts/add`, {
      api_key: suite.sender.apiKey,
      group_id: groupId,
      contacts: [{ mobile: '905551120020', fields: { ad: 'Zeynep', kod: 'Z9' } }],
    });
    await page.goto(`${suite.server.url}/panel/send`);
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page.getByLabel('Group').selectOption(String(groupId));
    await page.getByLabel('Template').selectOption({ label: 'Karşılama' });
    await page.getByRole('button', { name: 'Check cost' }).click();
    assert.match(await page.locator('#send-sample').innerText(), /^Merhaba Zeynep, kodunuz Z9\./);

    // An uploaded CSV's columns fill it: one text short enough for 1 SMS, one long enough for 2.
    await page.getByLabel('Group').selectOption('');
    await page
      .getByLabel('CSV content')
      .fill(`telefon,ad,kod\n905551120011,Ayşe,A1\n905551120012,${'Ç'.repeat(40)},B2`);
    await page.getByRole('button', { name: 'Check cost' }).click();
    assert.match(await page.locator('#send-sample').innerText(), /^Merhaba Ayşe, kodunuz A1\./);
    await page.getByText('Cost: 3 SMS').waitFor();
    const before = await balance();
    const id = await confirmSend();
    assert.equal(before - (await balance()), 3);
    const texts = await waitFor('the messages of the template send', () => {
      const rows = query<{ recipient: string; text: string }>(
        'SELECT recipient, text FROM messages WHERE send_id = ? ORDER BY recipient',
        id,
      );
      return rows.length === 2 ? rows : null;
    });
    assert.match(texts[0]?.text ?? '', /^Merhaba Ayşe, kodunuz A1\. x{120}$/);
    assert.match(texts[1]?.text ?? '', new RegExp(`^Merhaba ${'Ç'.repeat(40)}, kodunuz B2\\.`));

    // A row lacking a column is refused on the template's field, naming the recipient.
    await page.goto(`${suite.server.url}/panel/send`);
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page.getByLabel('Template').selectOption({ label: 'Karşılama' });
    await page.getByLabel('CSV content').fill('telefon,ad\n905551120013,Ali');
    await page.getByRole('button', { name: 'Check cost' }).click();
    await page.getByText('A recipient lacks a field the template names: 905551120013: {{kod}}').waitFor();
  });

  it('a short link followed shows as a click on the campaign page, with its chart', async () => {
    await page.goto(`${suite.server.url}/panel/send`);
    await page.getByLabel('Sender ID').selectOption('ACME');
    await page.getByLabel('Recipients').fill('905551120031, 905551120032');
    await page.getByLabel('Message text').fill('Indirim: https://shop.example/a?x=1');
    await page.getByLabel(/^Short links/).check();
    await page.getByRole('button', { name: 'Check cost' }).click();
    assert.match(await page.locator('#send-sample').innerText(), /^Indirim: http:\/\/s\.example\/l\/[A-Za-z0-9_-]+$/);
    const id = await confirmSend();
    assert.equal(await page.locator('#campaign-clicks').innerText(), '0');
    // Made as the send's messages are written out, just after it is accepted.
    const links = await waitFor('the send written out with its links', () => {
      const rows = query<{ token: string; recipient: string; url: string }>(
        'SELECT token, recipient, url FROM short_links WHERE send_id = ? ORDER BY recipient',
        id,
      );
      return rows.length === 2 && rows;
    });
    assert.equal(links[0]?.url, 'https://shop.example/a?x=1');
    for (let i = 0; i < 2; i++) {
      const go: Response = await fetch(`${suite.server.url}/l/${links[0]?.token ?? ''}`, { redirect: 'manual' });
      assert.equal(go.status, 302);
      assert.equal(go.headers.get('location'), 'https://shop.example/a?x=1');
    }
    await page.reload();
    assert.equal(await page.locator('#campaign-clicks').innerText(), '2');
    assert.equal(await page.locator('#campaign-clickers').innerText(), '1');
    const chart = page.getByRole('img', { name: 'Clicks over time' });
    await waitFor('the clicks chart drawn', async () => (await chart.getAttribute('data-drawn')) === '1');
    await page.locator('#clicks-title').waitFor();
  });

  it('send defaults saved on the account page are stored, audit-logged and prefill the send page', async () => {
    await page.goto(`${suite.server.url}/panel/account`);
    await page.getByLabel('Send window from (HH:MM, Istanbul)').fill('09:00');
    await page.getByLabel('Send window to (HH:MM)').fill('18:00');
    await page.getByLabel('Saturday').uncheck();
    await page.getByLabel('Sunday').uncheck();
    await page.getByLabel('Speed (messages a minute)').fill('30');
    await page.getByLabel('Validity (minutes, 1 to 2880)').fill('120');
    await page.getByRole('button', { name: 'Save send defaults' }).click();
    await page.getByText('Send defaults saved.').waitFor();
    const account = await admin(['account', 'show', '--id', suite.sender.accountId, ...suite.store]);
    assert.deepEqual(account.send_defaults, {
      send_window: { from: '09:00', to: '18:00', days: [1, 2, 3, 4, 5] },
      speed: 30,
      validity_minutes: 120,
    });
    const audit = query<{ action: string }>("SELECT action FROM audit_log WHERE action = 'account.send_defaults'");
    assert.equal(audit.length, 1);

    await page.goto(`${suite.server.url}/panel/send`);
    assert.equal(await page.getByLabel('Send window from (HH:MM, Istanbul)').inputValue(), '09:00');
    assert.equal(await page.getByLabel('Send window to (HH:MM)').inputValue(), '18:00');
    assert.equal(await page.getByLabel('Speed (messages a minute)').inputValue(), '30');
    assert.equal(await page.getByLabel('Validity (minutes, 1 to 2880)').inputValue(), '120');
    assert.equal(await page.getByLabel('Friday').isChecked(), true);
    assert.equal(await page.getByLabel('Saturday').isChecked(), false);
  });
});
