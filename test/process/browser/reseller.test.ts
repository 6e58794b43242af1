/**
 * The reseller's side of the panel in a browser (issue 46, items 3 and 6): a reseller's
 * user lists its customers, gives one credit after a confirmation showing both balances
 * before and after (the balances then change by exactly that), passes a customer's
 * sender-ID request on to the provider (whose queue then has it), suspends a customer (its
 * key is refused), is answered 404 for another reseller's customer, and downloads a
 * statement CSV whose figures are the ledger's: each account's closing balance is its
 * balance, the moves are the amounts moved, and the CSV equals `admin account statement`;
 * and opens its brand page from the menu.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { admin, postJson, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn, unnamedControls } from '../../helpers/browser.js';

const reseller = { email: 'browser-reseller@example.com', password: 'reseller password 1' };
const customer = { email: 'browser-customer@example.com', password: 'customer password 1' };
const staff = { email: 'browser-reseller-staff@example.com', password: 'provider password 2' };
/** A customer's name a spreadsheet would run as a formula: the CSV must carry it as text. */
const formulaName = '=HYPERLINK("http://x.example","y")';

describe('panel in a browser: the reseller side', { skip: chromiumSkip, timeout: 180_000 }, () => {
  const suite = serverForSuite('Browser Reseller', 1000);
  let browser: Browser;
  let page: Page;
  let customerId = '';
  let secondId = '';
  let foreignId = '';
  let customerKey = '';

  const show = async (id: string): Promise<{ balance_main: number; balance_international: number }> => {
    const a = await admin(['account', 'show', '--id', id, ...suite.store]);
    return { balance_main: Number(a.balance_main), balance_international: Number(a.balance_international) };
  };

  before(async () => {
    const store = suite.store;
    const resellerId = suite.sender.accountId;
    await admin(['account', 'update', '--id', resellerId, '--reseller', 'true', ...store]);
    customerId = String(
      (await admin(['account', 'create', '--name', 'Cust One', '--parent', resellerId, ...store])).id,
    );
    secondId = String((await admin(['account', 'create', '--name', formulaName, '--parent', resellerId, ...store])).id);
    const other = String((await admin(['account', 'create', '--name', 'Other Reseller', ...store])).id);
    await admin(['account', 'update', '--id', other, '--reseller', 'true', ...store]);
    foreignId = String((await admin(['account', 'create', '--name', 'Foreign', '--parent', other, ...store])).id);
    await admin(['account', 'topup', '--id', foreignId, '--amount', '40', ...store]);
    customerKey = String((await admin(['key', 'create', '--account', customerId, ...store])).api_key);
    await admin(['user', 'create', '--account', resellerId, ...Object.values(pair(reseller)), ...store]);
    await admin(['user', 'create', '--account', customerId, ...Object.values(pair(customer)), ...store]);
    await admin(['user', 'create', '--provider', ...Object.values(pair(staff)), ...store]);
    browser = await launchBrowser();
    page = (await newPage(browser)).page;
    await signIn(page, suite.server.url, reseller.email, reseller.password);
  });
  after(async () => {
    await browser.close();
  });

  it('lists its customers with their balances, and only its own', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers', exact: true }).click();
    await page.getByRole('heading', { name: 'Your customers' }).waitFor();
    const names = await page.locator('tbody th').allInnerTexts();
    assert.deepEqual(names, ['Cust One', formulaName]);
    // The account's own pages stay in the menu beside the reseller's.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Sender IDs', exact: true })
      .waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    await screenshot(page, 'reseller-customers');
  });

  it('gives a customer credit after a confirmation with both balances before and after, exactly', async () => {
    const before = { reseller: await show(suite.sender.accountId), customer: await show(customerId) };
    await page.getByRole('link', { name: 'Cust One' }).click();
    await page.getByLabel('Amount (SMS credits)').fill('300');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('heading', { name: 'Confirm the move of credit' }).waitFor();
    const cells = async (who: string) =>
      (
        await page
          .getByRole('row', { name: new RegExp(`^${who}`) })
          .getByRole('cell')
          .allInnerTexts()
      ).map(Number);
    assert.deepEqual(await cells('Yours'), [before.reseller.balance_main, before.reseller.balance_main - 300]);
    assert.deepEqual(await cells('The customer’s'), [before.customer.balance_main, before.customer.balance_main + 300]);
    assert.deepEqual(await show(customerId), before.customer, 'nothing moves before the confirmation');
    await screenshot(page, 'reseller-fund-confirm');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Done: the credit was moved.').waitFor();
    assert.equal((await show(suite.sender.accountId)).balance_main, before.reseller.balance_main - 300);
    assert.equal((await show(customerId)).balance_main, before.customer.balance_main + 300);
    assert.equal(await page.locator('#customer-main').innerText(), String(before.customer.balance_main + 300));

    // Taking back more than the customer's unused credit moves nothing.
    await page.getByLabel('Take unused credit back').check();
    await page.getByLabel('Amount (SMS credits)').fill('301');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByText('The customer’s unused credit is less than this amount. Nothing was moved.').waitFor();
    await page.getByLabel('Amount (SMS credits)').fill('100');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Done: the credit was moved.').waitFor();
    assert.equal((await show(customerId)).balance_main, before.customer.balance_main + 200);
    assert.equal((await show(suite.sender.accountId)).balance_main, before.reseller.balance_main - 200);
  });

  it("approves a customer's sender-ID request, which then waits in the provider's review", async () => {
    const { context, page: c } = await newPage(browser);
    await signIn(c, suite.server.url, customer.email, customer.password);
    await c.goto(`${suite.server.url}/panel/sender-ids`);
    await c.getByLabel('Sender ID', { exact: true }).fill('CUSTONE');
    await c.getByRole('button', { name: 'Request sender ID' }).click();
    await c
      .getByRole('row', { name: /CUSTONE/ })
      .getByText('Waiting for your reseller')
      .waitFor();
    // A customer that is no reseller has no reseller side.
    assert.equal((await c.goto(`${suite.server.url}/panel/reseller/customers`))?.status(), 404);

    const { context: staffContext, page: p } = await newPage(browser);
    await signIn(p, suite.server.url, staff.email, staff.password);
    await p.goto(`${suite.server.url}/panel/provider/sender-ids`);
    assert.equal(await p.getByRole('row', { name: /CUSTONE/ }).count(), 0, 'not the provider’s before the reseller’s');

    await page.goto(`${suite.server.url}/panel/reseller/sender-ids`);
    await screenshot(page, 'reseller-sender-ids');
    await page.getByRole('button', { name: 'Approve CUSTONE' }).click();
    await page.getByText('Approved: the request is now with the provider.').waitFor();

    await p.reload();
    await p.getByRole('button', { name: 'Approve CUSTONE' }).click();
    await p.getByText('CUSTONE is approved: the account can send from it now.').waitFor();
    await c.goto(`${suite.server.url}/panel/sender-ids`);
    assert.equal(
      await c
        .getByRole('row', { name: /CUSTONE/ })
        .getByRole('cell')
        .first()
        .innerText(),
      'Approved',
    );
    await context.close();
    await staffContext.close();
  });

  it('suspends a customer, whose key is then refused, and reactivates it', async () => {
    await page.goto(`${suite.server.url}/panel/reseller/customers/${customerId}`);
    await page.getByRole('button', { name: 'Suspend customer' }).click();
    await page.getByText('The customer is suspended').waitFor();
    const refused = await postJson(`${suite.server.url}/balance/`, { api_key: customerKey });
    assert.equal(refused.body.result_code, 'TS-1030');
    await page.getByRole('button', { name: 'Reactivate customer' }).click();
    await page.getByText('The customer is active again.').waitFor();
    const allowed = await postJson(`${suite.server.url}/balance/`, { api_key: customerKey });
    assert.equal(allowed.body.result_code, 'TS-1040');
  });

  it("cannot open or fund another reseller's customer: 404, and nothing moves", async () => {
    const base = suite.server.url;
    assert.equal((await page.goto(`${base}/panel/reseller/customers/${foreignId}`))?.status(), 404);
    await page.goto(`${base}/panel/reseller/customers/${customerId}`);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    for (const action of ['fund', 'fund/review', 'suspend', 'refund-policy']) {
      const answer = await page.request.post(`${base}/panel/reseller/customers/${foreignId}/${action}`, {
        form: { _csrf: csrf, amount: '10', direction: 'take', refund: '1' },
        maxRedirects: 0,
      });
      assert.equal(answer.status(), 404, action);
    }
    assert.deepEqual(await show(foreignId), { balance_main: 40, balance_international: 0 });
    assert.equal((await admin(['account', 'show', '--id', foreignId, ...suite.store])).status, 'Active');
  });

  it('downloads a statement CSV whose figures are the ledger’s, with a formula name made text', async () => {
    await page.goto(`${suite.server.url}/panel/reseller/statement`);
    await screenshot(page, 'reseller-statement', { fullPage: true });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '');
    const [header = '', ...lines] = csv.trim().split(/\r?\n/);
    const columns = header.split(',');
    const rows = lines.map((line) => Object.fromEntries(parseCsvLine(line).map((v, i) => [columns[i], v])));
    const month = rows[0]?.month ?? '';
    const cli = await admin([
      'account',
      'statement',
      '--id',
      suite.sender.accountId,
      '--month',
      month,
      '--customers',
      '--csv',
      '/dev/null',
      ...suite.store,
    ]);
    const statements = [cli, ...(cli.customers as Record<string, unknown>[])];
    assert.equal(rows.length, statements.length * 2);
    for (const s of statements) {
      const id = String(s.account_id);
      const balances = await show(id);
      for (const bucket of ['main', 'international'] as const) {
        const row = rows.find((r) => r.account_id === id && r.balance === bucket);
        assert.ok(row, `a row of ${id} ${bucket}`);
        const credit = (s.credit as Record<string, Record<string, number>>)[bucket] ?? {};
        for (const k of ['opening', 'added', 'spent', 'refunded', 'moved_in', 'moved_out', 'taken', 'closing'])
          assert.equal(Number(row[k]), credit[k], `${id} ${bucket} ${k}`);
        assert.equal(Number(row.closing), balances[`balance_${bucket}`], `${id} ${bucket}: closing is the balance`);
      }
    }
    const own = rows.find((r) => r.account_id === suite.sender.accountId && r.balance === 'main');
    const one = rows.find((r) => r.account_id === customerId && r.balance === 'main');
    assert.equal(Number(own?.moved_out), 300);
    assert.equal(Number(own?.moved_in), 100);
    assert.equal(Number(one?.moved_in), 300);
    assert.equal(Number(one?.moved_out), 100);
    assert.equal(rows.find((r) => r.account_id === secondId)?.name, `'${formulaName}`);
    assert.equal(
      rows.some((r) => r.account_id === foreignId),
      false,
      "no other reseller's customer",
    );
  });

  it('opens its brand page from the menu', async () => {
    const menu = page.getByRole('navigation', { name: 'Main' });
    await menu.getByRole('link', { name: 'Your brand', exact: true }).click();
    await page.getByRole('heading', { name: 'Your brand' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/panel/reseller/brand');
    assert.equal(
      await menu.getByRole('link', { name: 'Your brand', exact: true }).getAttribute('aria-current'),
      'page',
    );
    assert.deepEqual(await unnamedControls(page), []);
  });
});

function pair(who: { email: string; password: string }): Record<string, string> {
  return { e: '--email', email: who.email, p: '--password', password: who.password };
}

/** One CSV line (RFC 4180 quoting), enough for the statement's cells. */
function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cell);
      cell = '';
    } else cell += ch;
  }
  out.push(cell);
  return out;
}
