/**
 * `npm run bench [-- --only NAME[,NAME...]] [--duration S] [--warmup S] [--connections N] [--quiet-wait S]
 * [--messages N] [--kannel false]`: runs the benchmarks, prints Markdown tables, and writes the
 * raw results of each bench to bench/results/NAME-DATE.json (git-ignored). Load goes to
 * 127.0.0.1 only, for a fixed time or a fixed count.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchBalance } from './balance.bench.js';
import { benchBulk } from './bulk.bench.js';
import { benchSmppEndToEnd } from './smpp-e2e.bench.js';
import { benchSmsSend } from './sms-send.bench.js';
import { benchWebhooks } from './webhooks.bench.js';
import { benchPanelPages } from './panel-pages.bench.js';
import { benchMetricsCost } from './metrics-cost.bench.js';
import { benchClusterWake } from './cluster-wake.bench.js';
import { benchRetention } from './retention.bench.js';
import { benchScaleModel } from './scale-model.bench.js';
import { benchCarrierFairness } from './carrier-fairness.bench.js';
import { benchCampaignCancel } from './campaign-cancel.bench.js';
import { benchShortLinksSend } from './short-links-send.bench.js';
import { benchResellerSend } from './reseller-send.bench.js';
import type { Bench, BenchOptions, BenchResult, Figure } from './lib/bench.js';
import { defaultBenchOptions } from './lib/bench.js';
import { machineInfo } from './lib/machine.js';
import { disturbed, faults, figuresTable, markdownTable } from './lib/report.js';
import { repoRoot } from './lib/server-process.js';

/** Every bench `npm run bench` knows; a new one registers here. */
const benches: readonly Bench[] = [
  {
    name: 'balance',
    description: 'POST /balance/ against a bare Fastify route (issue 2)',
    run: async (o) => ({ results: await benchBalance(o), figures: [], faults: [] }),
  },
  {
    name: 'sms-send',
    description: 'single-recipient /sms/send, 20,000 over 50 connections, beside Kannel sendsms (issue 3)',
    run: benchSmsSend,
  },
  {
    name: 'bulk',
    description: '/group/send of 50,000 numbers: response, dispatch, memory, reports, interference (issue 4)',
    run: benchBulk,
  },
  {
    name: 'webhooks',
    description: 'webhook deliveries per second from the store, beside Kannel dlr-url callbacks (issue 6)',
    run: benchWebhooks,
  },
  {
    name: 'panel-pages',
    description: "the panel's data pages on a 1,000,000-message SQLite store: server time per page (issue 21)",
    run: benchPanelPages,
  },
  {
    name: 'metrics-cost',
    description: '/sms/send accept rate with --ops-port on vs off, interleaved: the cost of the metrics (issue 22)',
    run: benchMetricsCost,
  },
  {
    name: 'cluster-wake',
    description:
      'accept to submit from an HTTP-only process to a worker process on PostgreSQL, with and without NOTIFY (issue 24)',
    run: benchClusterWake,
  },
  {
    name: 'retention',
    description: '/sms/send p99 while retention removes a day of old messages, beside retention off (issue 24)',
    run: benchRetention,
  },
  {
    name: 'scale-model',
    description:
      'PostgreSQL with API and worker processes apart: rates and the CPU a message of each role and of PostgreSQL (issue 24; needs HABERCI_BENCH_DATABASE)',
    run: benchScaleModel,
  },
  {
    name: 'carrier-fairness',
    description:
      'one SMPP connection at 50/s: an interactive message under 50,000 queued bulk, and two accounts sharing the bulk lane',
    run: benchCarrierFairness,
  },
  {
    name: 'campaign-cancel',
    description:
      '/group/cancel of a running 50,000-number send on a 50/s link: the answer, and the counts after it (issue 45)',
    run: benchCampaignCancel,
  },
  {
    name: 'short-links-send',
    description:
      '/group/send of 50,000 numbers with short_links: 1 beside without, interleaved, on SQLite: the ratio (issue 45)',
    run: benchShortLinksSend,
  },
  {
    name: 'reseller-send',
    description:
      "/sms/send from a reseller's customer beside a flat account, interleaved, on SQLite: server CPU a request (issue 46)",
    run: benchResellerSend,
  },
  {
    name: 'smpp-e2e',
    description: 'HTTP accept to stored receipt and acknowledged webhook over SMPP, beside Kannel (issue 7)',
    run: benchSmppEndToEnd,
  },
];

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function positive(raw: string | undefined, fallback: number, flag: string, max = 600): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) fail(`--${flag} must be a whole number from 0 to ${max}, got "${raw}"`);
  return n;
}

function flag(raw: string | undefined, fallback: boolean, name: string): boolean {
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return fail(`--${name} must be true or false, got "${raw}"`);
}

function parseCommandLine(): { selected: readonly Bench[]; options: BenchOptions } {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'quiet-wait': { type: 'string' },
      messages: { type: 'string' },
      kannel: { type: 'string' },
    },
  });
  const names = values.only?.split(',').map((n) => n.trim()) ?? benches.map((b) => b.name);
  const unknown = names.filter((n) => !benches.some((b) => b.name === n));
  if (unknown.length > 0 || names.length === 0)
    fail(`no bench named "${unknown.join(', ')}"; known: ${benches.map((b) => b.name).join(', ')}`);
  const selected = benches.filter((b) => names.includes(b.name));
  const options: BenchOptions = {
    durationSeconds: Math.max(1, positive(values.duration, defaultBenchOptions.durationSeconds, 'duration')),
    warmupSeconds: positive(values.warmup, defaultBenchOptions.warmupSeconds, 'warmup'),
    connections: Math.max(1, positive(values.connections, defaultBenchOptions.connections, 'connections')),
    quietWaitSeconds: positive(values['quiet-wait'], defaultBenchOptions.quietWaitSeconds, 'quiet-wait'),
    messages: Math.max(100, positive(values.messages, defaultBenchOptions.messages, 'messages', 1_000_000)),
    kannel: flag(values.kannel, defaultBenchOptions.kannel, 'kannel'),
  };
  return { selected, options };
}

async function main(): Promise<void> {
  const { selected, options } = parseCommandLine();
  const date = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(repoRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const all: BenchResult[] = [];
  const figures: Figure[] = [];
  const invalid: string[] = [];
  for (const bench of selected) {
    process.stderr.write(`bench ${bench.name}: ${bench.description}\n`);
    const output = await bench.run(options);
    all.push(...output.results);
    figures.push(...output.figures);
    invalid.push(...output.faults);
    const file = join(resultsDir, `${bench.name}-${date}.json`);
    await writeFile(
      file,
      `${JSON.stringify({ bench: bench.name, date, machine: machineInfo(), options, ...output }, null, 2)}\n`,
    );
    process.stderr.write(`bench ${bench.name}: raw results in ${file}\n`);
  }
  const m = machineInfo();
  process.stdout.write(
    `\n${m.cores} cores, ${m.cpu}, Node ${m.node}; ${options.connections} connections, ${options.warmupSeconds} s warm-up, ${options.durationSeconds} s measured per case\n\n`,
  );
  if (all.length > 0) process.stdout.write(`${markdownTable(all)}\n`);
  if (figures.length > 0) process.stdout.write(`\n${figuresTable(figures)}\n`);
  const bad = [...faults(all), ...invalid];
  if (bad.length > 0) {
    process.stderr.write(`\nbench: these figures are not valid:\n${bad.map((b) => `  ${b}`).join('\n')}\n`);
    process.exitCode = 1;
  }
  const noisy = disturbed(all);
  if (noisy.length > 0)
    process.stderr.write(
      `\nbench: other work on the machine lowered these figures; run again when it is quiet:\n${noisy.map((b) => `  ${b}`).join('\n')}\n`,
    );
}

await main();
