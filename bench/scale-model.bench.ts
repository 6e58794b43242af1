/**
 * The scale model of docs/scaling.md (issue 24), measured: haberci on PostgreSQL split into
 * API processes (`serve --worker false`: accept and commit) and worker processes (`serve`:
 * the dispatcher with the built-in simulator, receipts, webhook events), in four layouts on
 * this machine. For each: the accept rate, the rate to the last message delivered, and the
 * CPU a message of each role and of PostgreSQL itself (its server and backends, from /proc),
 * which is what the model in docs/scaling.md multiplies out. Needs HABERCI_BENCH_DATABASE;
 * skipped without it.
 */
import pg from 'pg';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure } from './lib/bench.js';
import { postgresStore, provisionSender, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { smsSendBody } from './lib/haberci-load.js';
import { runHey } from './lib/hey.js';
import { cpuTotals, busyPercent, namedProcessesCpuSeconds, settle } from './lib/machine.js';
import { pollUntil } from './lib/processes.js';
import type { ServerProcess } from './lib/server-process.js';
import { benchDatabaseUrl } from './lib/settings.js';

const bench = 'scale-model';

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

/** A layout: how many processes of each role. `combined`: one `serve` doing both. */
interface Layout {
  name: string;
  api: number;
  workers: number;
  combined: boolean;
}

const layouts: readonly Layout[] = [
  { name: 'one process (API and worker)', api: 0, workers: 0, combined: true },
  { name: '1 API + 1 worker', api: 1, workers: 1, combined: false },
  { name: '2 API + 1 worker', api: 2, workers: 1, combined: false },
  { name: '1 API + 2 workers', api: 1, workers: 2, combined: false },
];

/** Receipts from the built-in simulator after this long: prompt, so the run measures work, not waiting. */
const simDelayMs = 20;

async function countStates(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = (
      await client.query<{ state: string; n: string }>('select state, count(*) as n from messages group by state')
    ).rows;
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  } finally {
    await client.end();
  }
}

const cpu = (processes: readonly ServerProcess[]): number =>
  processes.reduce((sum, p) => sum + (p.cpuSeconds() ?? 0), 0);

async function measureLayout(
  layout: Layout,
  databaseUrl: string,
  options: BenchOptions,
): Promise<{ figures: Figure[]; faults: string[] }> {
  const n = options.messages;
  const warmup = 500;
  const store: BenchStore = await postgresStore(databaseUrl);
  const storeUrl = store.flags[1] ?? '';
  const started: ServerProcess[] = [];
  try {
    const key = await provisionSender(store, 10 * n + 10_000);
    const simulator = ['--sim-delay-ms', String(simDelayMs)];
    const api: ServerProcess[] = [];
    const workers: ServerProcess[] = [];
    if (layout.combined) {
      const both = await startHaberci(store, 0, simulator);
      started.push(both);
      api.push(both);
    } else {
      for (let i = 0; i < layout.workers; i++) {
        const w = await startHaberci(store, 0, simulator);
        started.push(w);
        workers.push(w);
      }
      for (let i = 0; i < layout.api; i++) {
        const a = await startHaberci(store, 0, ['--worker', 'false']);
        started.push(a);
        api.push(a);
      }
    }
    const body = smsSendBody(key.apiKey);
    const delivered = async (): Promise<number> => (await countStates(storeUrl)).delivered ?? 0;
    progress(`${layout.name}: warm-up ${warmup} over 10 connections`);
    await Promise.all(
      api.map((a) =>
        runHey({ url: `${a.url}/sms/send`, requests: Math.ceil(warmup / api.length), connections: 10, body }),
      ),
    );
    const warmDelivered = await pollUntil(async () => ((await delivered()) >= warmup ? true : null), 100, 120_000);
    await settle(options.quietWaitSeconds);

    progress(`${layout.name}: ${n} requests over ${options.connections} connections`);
    const apiCpu0 = cpu(api);
    const workerCpu0 = cpu(workers);
    const pg0 = namedProcessesCpuSeconds('postgres');
    const machine0 = cpuTotals();
    const startedAt = Date.now();
    const share = Math.ceil(n / api.length);
    const heys = await Promise.all(
      api.map((a) =>
        runHey({
          url: `${a.url}/sms/send`,
          requests: share,
          connections: Math.max(1, Math.round(options.connections / api.length)),
          body,
        }),
      ),
    );
    const acceptSeconds = (Date.now() - startedAt) / 1000;
    const target = warmup + share * api.length;
    const doneAt = await pollUntil(async () => ((await delivered()) >= target ? Date.now() : null), 50, 300_000);
    const apiCpu = cpu(api) - apiCpu0;
    const workerCpu = cpu(workers) - workerCpu0;
    const pg1 = namedProcessesCpuSeconds('postgres');
    const pgCpu = pg0 !== null && pg1 !== null ? pg1 - pg0 : null;
    const busy = busyPercent(machine0, cpuTotals());
    const sent = share * api.length;
    const faults: string[] = [];
    const non2xx = heys.reduce((s, h) => s + h.non2xx + h.errors, 0);
    if (non2xx > 0) faults.push(`${bench} ${layout.name}: ${non2xx} non-2xx answers or errors`);
    if (warmDelivered === null || doneAt === null)
      faults.push(
        `${bench} ${layout.name}: not every message delivered in time: ${JSON.stringify(await countStates(storeUrl))}`,
      );
    const micro = (seconds: number | null): number | null => (seconds === null ? null : (seconds * 1e6) / sent);
    const deliveredRate = doneAt === null ? null : sent / ((doneAt - startedAt) / 1000);
    const scenario = layout.name;
    return {
      faults,
      figures: [
        figure(
          bench,
          scenario,
          'HTTP accept (hey)',
          sent / acceptSeconds,
          'req/s',
          `p99 ${Math.max(...heys.map((h) => h.latencyP99Ms)).toFixed(1)} ms (worst of ${heys.length} hey)`,
        ),
        figure(
          bench,
          scenario,
          'all delivered, from load start',
          deliveredRate,
          'msg/s',
          `machine ${busy?.toFixed(0) ?? '-'}% busy (200 = both cores)`,
        ),
        figure(
          bench,
          scenario,
          layout.combined ? 'CPU a message, the one process' : 'CPU a message, API processes',
          micro(apiCpu),
          'µs',
          `${apiCpu.toFixed(2)} s over ${api.length} process(es)`,
        ),
        ...(layout.combined
          ? []
          : [
              figure(
                bench,
                scenario,
                'CPU a message, worker processes',
                micro(workerCpu),
                'µs',
                `${workerCpu.toFixed(2)} s over ${workers.length} process(es)`,
              ),
            ]),
        figure(
          bench,
          scenario,
          'CPU a message, PostgreSQL',
          micro(pgCpu),
          'µs',
          'the postgres server and its backends, from /proc',
        ),
      ],
    };
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await store.dispose();
  }
}

export async function benchScaleModel(options: BenchOptions): Promise<BenchOutput> {
  const databaseUrl = benchDatabaseUrl();
  if (databaseUrl === '') {
    progress('skipped: HABERCI_BENCH_DATABASE is not set (the model is of PostgreSQL)');
    return { results: [], figures: [], faults: [] };
  }
  const figures: Figure[] = [];
  const faults: string[] = [];
  for (const layout of layouts) {
    const measured = await measureLayout(layout, databaseUrl, options);
    figures.push(...measured.figures);
    faults.push(...measured.faults);
  }
  return { results: [], figures, faults };
}
