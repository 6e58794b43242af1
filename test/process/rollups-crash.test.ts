/**
 * The panel's rollups are derived after the commit (docs/decisions.md, "Rollups after the
 * commit"): a real `serve` on each store takes single and group sends over HTTP and is killed
 * with SIGKILL right after the last answer, while its receipts and the deriver's rounds are
 * under way; restarted on the same store, the panel's figures (this month's tally of the
 * overview, from `daily_counts`; each campaign's page, from `send_counts`) come to exactly
 * what the simulator's outcomes say, and stay there: nothing is counted twice, nothing lost.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

interface Tally {
  messages: number;
  sms: number;
  delivered: number;
  failed: number;
  pending: number;
}

/** The simulator's outcome by the last four digits (shared/interfaces.md). */
function expectedOf(numbers: readonly string[], smsPerMessage: number): Tally {
  const t: Tally = { messages: 0, sms: 0, delivered: 0, failed: 0, pending: 0 };
  for (const n of numbers) {
    t.messages += 1;
    t.sms += smsPerMessage;
    if (n.endsWith('0000') || n.endsWith('0001')) t.failed += 1;
    else if (n.endsWith('0002')) t.pending += 1;
    else t.delivered += 1;
  }
  return t;
}

/** A panel session over plain HTTP: signs in as a browser would and keeps its cookies. */
async function panelSession(base: string, email: string, password: string): Promise<(path: string) => Promise<string>> {
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
  const cookie = answer.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .join('; ');
  return async (path) => {
    const page = await fetch(`${base}${path}`, { headers: { cookie, 'accept-language': 'en' } });
    assert.equal(page.status, 200, path);
    return page.text();
  };
}

/** The figures of a `<dl>` of the panel, by their English labels. */
function figures(html: string, labels: readonly string[]): number[] {
  return labels.map((label) => Number(new RegExp(`<dt>${label}</dt><dd>(\\d+)</dd>`).exec(html)?.[1] ?? -1));
}

function monthTally(overview: string): Tally {
  const section = /<section aria-labelledby="month"[\s\S]*?<\/section>/.exec(overview)?.[0] ?? '';
  const [messages = -1, sms = -1, delivered = -1, failed = -1, pending = -1] = figures(section, [
    'Messages',
    'SMS parts',
    'Delivered',
    'Failed',
    'Pending',
  ]);
  return { messages, sms, delivered, failed, pending };
}

async function scenario(storeArgs: string[]): Promise<void> {
  const base = ['--demo', 'false', '--sim-delay-ms', '0', '--lease-ms', '2000', '--requests-per-second', '0'];
  const servers: ServerProcess[] = [];
  try {
    const first = await startServer([...base, ...storeArgs]);
    servers.push(first);
    const sender = await provisionSender(storeArgs, 'Rollups', 100_000);
    const email = 'rollups@example.com';
    const password = 'rollups-password-1';
    await admin([
      'user',
      'create',
      '--account',
      sender.accountId,
      '--email',
      email,
      '--password',
      password,
      ...storeArgs,
    ]);

    // Single sends (the accept path the deriver relieves) and group sends, outcomes of every kind.
    const singles = Array.from(
      { length: 80 },
      (_, i) => `9053210${String(i % 5 === 0 ? i % 3 : 1000 + i).padStart(5, '0')}`,
    );
    const groups = [0, 1, 2].map((g) =>
      Array.from({ length: 6 }, (_, i) => `9053220${g}${String(i).padStart(4, '0')}`),
    );
    const campaigns: { id: number; numbers: string[] }[] = [];
    const single = async (to: string): Promise<void> => {
      const answer = await postJson(`${first.url}/sms/send`, {
        api_key: sender.apiKey,
        title: 'ACME',
        sentto: to,
        text: 'rollups',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    };
    const group = async (numbers: string[]): Promise<void> => {
      const answer = await postJson(`${first.url}/group/send`, {
        api_key: sender.apiKey,
        title: 'ACME',
        sentto: numbers,
        text: 'rollups',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
      const data = answer.body.data as Record<string, unknown> | undefined;
      campaigns.push({ id: Number(data?.rapor_id ?? answer.body.rapor_id), numbers });
    };
    for (let i = 0; i < singles.length; i += 10) await Promise.all(singles.slice(i, i + 10).map(single));
    await Promise.all(groups.map(group));
    // Killed at once: receipts, hand-offs and the deriver's rounds are cut wherever they are.
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServer([...base, ...storeArgs]);
    servers.push(second);
    const page = await panelSession(second.url, email, password);
    const expected = expectedOf([...singles, ...groups.flat()], 1);
    const seen = { last: null as Tally | null };
    await waitFor(
      `the overview's month to show ${JSON.stringify(expected)} (last seen ${JSON.stringify(seen.last)})`,
      async () => {
        seen.last = monthTally(await page('/panel/overview'));
        return JSON.stringify(seen.last) === JSON.stringify(expected);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    for (const c of campaigns) {
      const want = expectedOf(c.numbers, 1);
      const [delivered, failed, pending] = figures(await page(`/panel/campaigns/${c.id}`), [
        'Delivered',
        'Failed',
        'Pending',
      ]);
      assert.deepEqual(
        { delivered, failed, pending },
        { delivered: want.delivered, failed: want.failed, pending: want.pending },
      );
    }
    // Stopped and started again: the figures stay exactly where they are (no row derived twice).
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    const third = await startServer([...base, ...storeArgs]);
    servers.push(third);
    const again = await panelSession(third.url, email, password);
    assert.deepEqual(monthTally(await again('/panel/overview')), expected);
  } finally {
    for (const s of servers) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  }
}

describe('panel rollups derived after the commit, through a crash', { timeout: 180_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('SQLite: after SIGKILL and a restart the panel shows exact counts, none twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-rollups-'));
    dirs.push(dir);
    await scenario(['--data', dir]);
  });

  const schema = schemaForSuite();
  it(
    'PostgreSQL: the same',
    {
      skip:
        postgresUrl() === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false,
    },
    async () => {
      await scenario(['--database', schema.url]);
    },
  );
});
