/**
 * The provider console's SMPP customers page on a real `serve --smpp-server-port`: a
 * customer's ESME binds as a transmitter and submits with registered_delivery; a provider
 * user sees the session (system_id, peer, bind type, submits) and, as the messages become
 * final with no receiver bound, the receipts owed to it; when the ESME goes the row goes
 * (htmx polling, no reload). A customer user gets 404 on the page.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { admin, provisionSender, startServer } from '../../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../../helpers/server-process.js';
import { stop } from '../../helpers/smsc-sim.js';
import { connectEsme, smppPortOf } from '../../helpers/esme.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn } from '../../helpers/browser.js';

/** Signs in over plain HTTP as a browser would; returns the session cookie. */
async function sessionOf(base: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${base}/panel/sign-in`);
  const pre = /haberci_pre=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const answer = await fetch(`${base}/panel/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `haberci_pre=${pre}` },
    body: new URLSearchParams({ _csrf: token, email, password }).toString(),
  });
  assert.equal(answer.status, 303);
  const session = /haberci_session=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(session, 'signed in');
  return `haberci_session=${session}`;
}

describe('the provider console: SMPP customers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-provider-smpp-'));
  const password = 'correct horse battery';
  const provider = 'ops@example.com';
  const customer = 'customer@example.com';
  let server: ServerProcess;
  let sender: ProvisionedSender;
  before(async () => {
    server = await startServer(['--data', dir, '--demo', 'false', '--sim-delay-ms', '50', '--smpp-server-port', '0']);
    sender = await provisionSender(['--data', dir], 'Smpp', 100);
    await admin(['user', 'create', '--provider', '--email', provider, '--password', password, '--data', dir]);
    await admin([
      'user',
      'create',
      '--account',
      sender.accountId,
      '--email',
      customer,
      '--password',
      password,
      '--data',
      dir,
    ]);
    await admin([
      'smpp-user',
      'create',
      '--key',
      sender.keyId,
      '--system-id',
      'acme',
      '--password',
      'pw',
      '--data',
      dir,
    ]);
  });
  after(async () => {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a customer user 404 on the page, and a provider user 200', async () => {
    const customerCookie = await sessionOf(server.url, customer, password);
    const providerCookie = await sessionOf(server.url, provider, password);
    for (const path of ['/panel/provider/smpp-sessions', '/panel/provider/smpp-sessions/live']) {
      const refused = await fetch(`${server.url}${path}`, { headers: { cookie: customerCookie }, redirect: 'manual' });
      assert.equal(refused.status, 404, path);
      const shown = await fetch(`${server.url}${path}`, { headers: { cookie: providerCookie }, redirect: 'manual' });
      assert.equal(shown.status, 200, path);
      assert.match(await shown.text(), /No customer is bound/);
    }
  });

  it(
    'shows a bound customer, its submits and the receipts owed to it, and drops the row when it goes, without a reload',
    {
      skip: chromiumSkip,
    },
    async () => {
      const esme = await connectEsme(smppPortOf(server.output()), { enquireMs: 300 });
      const browser: Browser = await launchBrowser();
      try {
        assert.equal(await esme.bind('bind_transmitter', 'acme', 'pw'), 0);
        for (const to of ['905321112233', '905321112234'])
          assert.equal((await esme.submit(to, 'console')).command_status, 0);
        const { context, page } = await newPage(browser);
        await signIn(page, server.url, provider, password);
        await page.getByRole('link', { name: 'SMPP customers' }).click();
        await page.waitForURL(/\/panel\/provider\/smpp-sessions/);
        const row = page.getByRole('row', { name: /acme/ });
        await row.getByRole('cell', { name: 'Transmitter', exact: true }).waitFor();
        assert.match(await row.innerText(), /127\.0\.0\.1/);
        assert.equal(await row.locator('[data-submits]').innerText(), '2');
        // Both messages become final; with no receiver bound their receipts wait, and the
        // table (fetched again every 3 s) shows them owed.
        await row.locator('[data-owed]', { hasText: /^2$/ }).waitFor({ timeout: 20_000 });
        await screenshot(page, 'provider-smpp-sessions', { fullPage: true });
        const url = page.url();
        await esme.close();
        await page.getByText('No customer is bound.').waitFor({ timeout: 15_000 });
        assert.equal(page.url(), url, 'no navigation');
        await context.close();
      } finally {
        await browser.close();
        await esme.close();
      }
    },
  );
});
