import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { admin, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn, unnamedControls } from '../../helpers/browser.js';

describe('provider console in a browser', { skip: chromiumSkip, timeout: 120_000 }, () => {
  const suite = serverForSuite('Browser Console', 100);
  let browser: Browser;
  const customer = { email: 'browser-customer@example.com', password: 'customer password 1' };
  const staff = { email: 'browser-staff@example.com', password: 'provider password 1' };

  const api = async (
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${suite.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const noUnnamed = async (page: Page): Promise<void> => assert.deepEqual(await unnamedControls(page), []);

  before(async () => {
    browser = await launchBrowser();
    await admin([
      'user',
      'create',
      '--account',
      suite.sender.accountId,
      '--email',
      customer.email,
      '--password',
      customer.password,
      ...suite.store,
    ]);
    await admin(['user', 'create', '--provider', '--email', staff.email, '--password', staff.password, ...suite.store]);
  });
  after(async () => {
    await browser.close();
  });

  it('approves a sender ID the customer requested in their panel, after which the customer can send from it', async () => {
    const { server } = suite;
    const { context: customerContext, page: c } = await newPage(browser);
    await signIn(c, server.url, customer.email, customer.password);
    await c.getByRole('link', { name: 'Sender IDs' }).click();
    await c.getByLabel('Sender ID').fill('BRWSR');
    await c.getByRole('button', { name: 'Request sender ID' }).click();
    await c.getByText('Requested. It stays pending until the provider approves it.').waitFor();
    const before = await api('/sms/send', {
      api_key: suite.sender.apiKey,
      title: 'BRWSR',
      sentto: '05321234567',
      text: 'Merhaba',
    });
    assert.notEqual(before.body.result_code, 'TS-1024', 'not sendable while pending');

    const { context, page: p } = await newPage(browser);
    await signIn(p, server.url, staff.email, staff.password);
    assert.equal(await p.getByRole('heading', { level: 1 }).innerText(), 'Provider console');
    await noUnnamed(p);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sender ID requests' }).click();
    await p.getByRole('row', { name: /BRWSR/ }).waitFor();
    await noUnnamed(p);
    await screenshot(p, 'provider-sender-ids', { fullPage: true });
    await p.getByRole('button', { name: 'Approve BRWSR' }).click();
    await p.getByText('BRWSR is approved: the account can send from it now.').waitFor();

    const sent = await api('/sms/send', {
      api_key: suite.sender.apiKey,
      title: 'BRWSR',
      sentto: '05321234567',
      text: 'Merhaba',
    });
    assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
    await c.reload();
    assert.equal(await c.getByRole('row', { name: /BRWSR/ }).getByRole('cell').first().innerText(), 'Approved');
    await customerContext.close();
    await context.close();
  });

  it('suspends an account, whose API calls are then refused, reactivates it, and finds both in the audit log', async () => {
    const { server } = suite;
    const { context, page: p } = await newPage(browser);
    await signIn(p, server.url, staff.email, staff.password);
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
    await p.getByLabel('Search accounts').fill('browser console');
    await p.getByRole('button', { name: 'Search' }).click();
    await noUnnamed(p);
    await screenshot(p, 'provider-accounts');
    await p.getByRole('link', { name: 'Browser Console' }).click();
    await p.getByRole('button', { name: 'Suspend account' }).click();
    await p.getByText('The account is suspended: its API calls are refused.').waitFor();
    const refused = await api('/balance/', { api_key: suite.sender.apiKey });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.result_code, 'TS-1030');

    await p.getByLabel('Amount to add').fill('250');
    await p.getByRole('button', { name: 'Top up' }).click();
    await p.getByText('The credit was added.').waitFor();
    await p.getByRole('button', { name: 'Reactivate account' }).click();
    await p.getByText('The account is active again.').waitFor();
    await noUnnamed(p);
    await screenshot(p, 'provider-account', { fullPage: true });
    const balance = await api('/balance/', { api_key: suite.sender.apiKey });
    assert.equal(balance.body.result_code, 'TS-1040');
    assert.equal(balance.body.balance_main, 349);

    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await p.getByLabel('Account number').fill(suite.sender.accountId);
    await p.getByLabel('Actor (email or cli)').fill(staff.email);
    await p.getByRole('button', { name: 'Search' }).click();
    await p.waitForURL(/actor=/);
    const actions = await p.locator('td.action').allInnerTexts();
    assert.deepEqual(actions, ['account.reactivate', 'account.topup', 'account.suspend', 'sender-id.approve']);
    await noUnnamed(p);
    await screenshot(p, 'provider-audit', { fullPage: true });
    await p.getByLabel('Actor (email or cli)').fill(customer.email);
    await p.getByRole('button', { name: 'Search' }).click();
    await p.waitForURL(/browser-customer/);
    assert.ok((await p.locator('td.action').allInnerTexts()).includes('sender-id.request'));
    await context.close();
  });
});
