/**
 * The provider console's live pages on a real `serve` with an SMPP carrier (smsc-sim): a
 * provider user sees the Carriers page show the connection bound, then (htmx polling, no
 * reload) unbound once the SMSC is gone; the Traffic page draws its chart with the minutes
 * of the sends just made. Over plain HTTP, a customer user gets 404 on these pages.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { admin, postJson, provisionSender, startServer } from '../../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../../helpers/server-process.js';
import { startSimulator, stop } from '../../helpers/smsc-sim.js';
import type { Simulator } from '../../helpers/smsc-sim.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn } from '../../helpers/browser.js';
import { waitFor } from '../../helpers/wait-for.js';

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

const livePages = ['/panel/provider/carriers', '/panel/provider/carriers/live', '/panel/provider/traffic'];

describe('the provider console: carriers and traffic', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-provider-live-'));
  const password = 'correct horse battery';
  const provider = 'ops@example.com';
  const customer = 'customer@example.com';
  let sim: Simulator;
  let server: ServerProcess;
  let sender: ProvisionedSender;
  before(async () => {
    sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '50']);
    const connection = {
      name: 'turkcell-1',
      host: '127.0.0.1',
      port: sim.port,
      systemId: 'haberci',
      password: 'pw',
      windowSize: 20,
      enquireLinkMs: 300,
      reconnectMinMs: 50,
      reconnectMaxMs: 200,
    };
    writeFileSync(join(dir, 'smpp.json'), JSON.stringify({ connections: [connection], defaultRoute: 'turkcell-1' }));
    server = await startServer([
      '--data',
      dir,
      '--smpp-config',
      join(dir, 'smpp.json'),
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--traffic-flush-ms',
      '300',
    ]);
    sender = await provisionSender(['--data', dir], 'Live', 1000);
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
  });
  after(async () => {
    await stop(server.child);
    if (sim.child.signalCode === null) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a customer user 404 on the live pages, and a provider user 200', async () => {
    const customerCookie = await sessionOf(server.url, customer, password);
    const providerCookie = await sessionOf(server.url, provider, password);
    for (const path of livePages) {
      const refused = await fetch(`${server.url}${path}`, { headers: { cookie: customerCookie }, redirect: 'manual' });
      assert.equal(refused.status, 404, path);
      const shown = await fetch(`${server.url}${path}`, { headers: { cookie: providerCookie }, redirect: 'manual' });
      assert.equal(shown.status, 200, path);
    }
    const signedOut = await fetch(`${server.url}/panel/provider/traffic`, { redirect: 'manual' });
    assert.equal(signedOut.status, 303, 'signed out: to the sign-in page');
  });

  it('draws the traffic chart from the minutes of the sends just made', { skip: chromiumSkip }, async () => {
    for (const number of ['905321234567', '905321234568', '905321230000']) {
      const answer = await postJson(`${server.url}/sms/send`, {
        api_key: sender.apiKey,
        sentto: number,
        title: 'ACME',
        text: 'traffic',
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    }
    const browser: Browser = await launchBrowser();
    try {
      const { context, page } = await newPage(browser);
      await signIn(page, server.url, provider, password);
      await page.getByRole('link', { name: 'Traffic' }).click();
      await page.waitForURL(/\/panel\/provider\/traffic/);
      // The counts reach the store within a flush (300 ms here) of each thread: reload until they did.
      let totals: string[] = [];
      // On time-out the assertion below shows the last totals read.
      await waitFor(
        'the traffic totals 3 accepted, 2 delivered, 1 failed',
        async () => {
          const names = ['accepted', 'delivered', 'failed'];
          totals = await Promise.all(names.map((n) => page.locator(`[data-total="${n}"]`).innerText()));
          if (totals.join() === '3,2,1') return true;
          await page.reload();
          return false;
        },
        { timeoutMs: 15_000, intervalMs: 300 },
      ).catch(() => undefined);
      assert.deepEqual(totals, ['3', '2', '1']);
      assert.equal(await page.locator('[data-total="submitted"]').innerText(), '3');
      // uPlot drew the chart: three hours of minutes, a canvas.
      const chart = page.getByRole('img', { name: 'Messages per minute' });
      await chart.locator('canvas').waitFor();
      assert.equal(await chart.getAttribute('data-drawn'), String(3 * 60));
      await screenshot(page, 'provider-traffic', { fullPage: true });
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it(
    'shows the carrier connection bound, then unbound once the SMSC is gone, without a reload',
    { skip: chromiumSkip },
    async () => {
      const browser: Browser = await launchBrowser();
      try {
        const { context, page } = await newPage(browser);
        await signIn(page, server.url, provider, password);
        await page.getByRole('link', { name: 'Carriers' }).click();
        await page.waitForURL(/\/panel\/provider\/carriers/);
        const row = page.getByRole('row', { name: /turkcell-1/ });
        await row.getByRole('cell', { name: 'Bound', exact: true }).waitFor();
        assert.match(await row.innerText(), /of 20/);
        // The one bind of the cluster is this process's, and the lanes' backlog is beside it.
        assert.match(await row.innerText(), /1 of 1[\s\S]*\(this process\)/);
        await page.getByRole('row', { name: /Interactive/ }).waitFor();
        await screenshot(page, 'provider-carriers-bound', { fullPage: true });
        const url = page.url();
        sim.child.kill('SIGKILL');
        await new Promise((r) => sim.child.once('exit', r));
        // htmx fetches the table again every 3 s: the row turns unbound on the same page.
        await row.getByRole('cell', { name: 'Unbound', exact: true }).waitFor({ timeout: 15_000 });
        assert.equal(page.url(), url, 'no navigation');
        assert.match(await row.innerText(), /session lost/);
        await screenshot(page, 'provider-carriers-unbound', { fullPage: true });
        await context.close();
      } finally {
        await browser.close();
      }
    },
  );
});
