/**
 * The panel's data pages on a store of 1,000,000 messages (issue 21): four accounts, each
 * with campaigns and single sends spread over 60 days, filled straight into SQLite
 * (bench/lib/panel-filler.ts); then `haberci serve`, a sign-in through the form, and each
 * page asked for many times in a row on one connection. The time of a request is measured
 * from the bench's side over loopback, one request at a time: the server's time plus a
 * loopback round trip, so an upper bound of the server time. Target: median <= 100 ms.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { figure, judged } from './lib/bench.js';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { provisionSender, sqliteStore, startHaberci } from './lib/haberci.js';
import { keyIdOf } from './lib/store-filler.js';
import { fillPanelStore } from './lib/panel-filler.js';
import { repoRoot } from './lib/server-process.js';
import { settle } from './lib/machine.js';

const run = promisify(execFile);
const bench = 'panel-pages';
const accounts = 4;
/** Per account: 10 campaigns of 20,000 and 50,000 single sends = 250,000 messages; 1,000,000 in all. */
const shape = { campaigns: 10, perCampaign: 20_000, singles: 50_000, days: 60 };
const warmup = 10;
const samples = 100;
const password = 'bench password 1';

/** A browser's cookies and CSRF token, enough to sign in and read pages. */
class Session {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async request(
    path: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ status: number; body: string }> {
    const headers: Record<string, string> = {
      'accept-language': 'en',
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(`${this.base}${path}`, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return { status: response.status, body: await response.text() };
  }

  async signIn(email: string): Promise<void> {
    const form = await this.request('/panel/sign-in');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const answer = await this.request('/panel/sign-in', { method: 'POST', form: { _csrf: csrf, email, password } });
    if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`);
  }
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export async function benchPanelPages(options: BenchOptions): Promise<BenchOutput> {
  const store = await sqliteStore();
  const figures: Figure[] = [];
  const faults: string[] = [];
  try {
    const dataDir = store.dataDir ?? '';
    const owners: { accountId: number; keyId: number }[] = [];
    for (let i = 0; i < accounts; i++) {
      const sender = await provisionSender(store, 1_000_000);
      owners.push({ accountId: sender.accountId, keyId: keyIdOf(dataDir, sender.accountId) });
    }
    const email = 'bench-panel@example.com';
    await run(
      join(repoRoot, 'bin', 'haberci'),
      [
        'admin',
        'user',
        'create',
        '--account',
        String(owners[0]?.accountId ?? 0),
        '--email',
        email,
        '--password',
        password,
        ...store.flags,
      ],
      { cwd: repoRoot },
    );
    const started = performance.now();
    const filled = fillPanelStore(dataDir, owners, shape, Date.now());
    const fillSeconds = (performance.now() - started) / 1000;
    process.stderr.write(`bench ${bench}: ${filled.messages} messages written in ${fillSeconds.toFixed(0)} s\n`);
    figures.push(
      figure(
        bench,
        'fill',
        'messages written',
        filled.messages,
        'messages',
        `in ${fillSeconds.toFixed(0)} s, the rollups counted once after`,
      ),
    );

    const server = await startHaberci(store, 0);
    try {
      const session = new Session(server.url);
      await session.signIn(email);
      const pages: [string, string][] = [
        ['overview', '/panel/overview'],
        ['messages, first page', '/panel/messages'],
        ['messages, status failed', '/panel/messages?status=failed'],
        ['messages, one number', `/panel/messages?number=${filled.number}`],
        [
          'messages, date range',
          `/panel/messages?from=${new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10)}`,
        ],
        ['messages, deep page', `/panel/messages?after=${filled.deepCursor}`],
        ['a message', `/panel/messages/${filled.messageId}`],
        ['campaigns', '/panel/campaigns'],
        ['a campaign', `/panel/campaigns/${filled.campaignId}`],
        ['groups', '/panel/groups'],
        ['blocking list', '/panel/blocklist'],
      ];
      await settle(options.quietWaitSeconds);
      for (const [name, path] of pages) {
        const times: number[] = [];
        for (let i = 0; i < warmup + samples; i++) {
          const t0 = performance.now();
          const answer = await session.request(path);
          const ms = performance.now() - t0;
          if (answer.status !== 200) {
            faults.push(`${name}: HTTP ${answer.status}`);
            break;
          }
          if (i >= warmup) times.push(ms);
        }
        times.sort((x, y) => x - y);
        const median = quantile(times, 0.5);
        figures.push(
          judged(
            figure(bench, name, 'median', Math.round(median * 10) / 10, 'ms', `${samples} requests, one at a time`),
            '<= 100 ms',
            (v) => v <= 100,
          ),
        );
        figures.push(figure(bench, name, 'p95', Math.round(quantile(times, 0.95) * 10) / 10, 'ms'));
        process.stderr.write(`bench ${bench}: ${name}: median ${median.toFixed(1)} ms\n`);
      }
    } finally {
      await server.stop();
    }
  } finally {
    await store.dispose();
  }
  return { results: [], figures, faults };
}
