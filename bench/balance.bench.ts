/**
 * Issue 2: POST /balance/ requests per second for a key with no limits and for a key with
 * all three request limits, each beside a bare Fastify route answering the same JSON, in
 * one run. Targets: at least 1/2 of the bare rate without limits, 1/3 with all limits (the
 * hourly, daily and monthly counts, and the per-key rate: in memory on SQLite, in the store
 * on PostgreSQL, in Redis when HABERCI_BENCH_REDIS is set; issue 24).
 */
import type { BenchOptions, BenchResult } from './lib/bench.js';
import { defaultBenchOptions } from './lib/bench.js';
import { postgresStore, provisionBalanceKeys, sqliteStore, startBareServer, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { measure } from './lib/load.js';
import type { JsonRequest, Measurement } from './lib/load.js';
import type { ServerProcess } from './lib/server-process.js';
import { benchDatabaseUrl, benchRedisUrl } from './lib/settings.js';

const bench = 'balance';
const expectBody = '{"result":true,"result_code":"TS-1040","result_message":"Query successful","balance_main":1000}';
/** Far above what 50 connections reach here: the limiter runs but never refuses. */
const limiterOnRate = 1_000_000;
/** The bare route checks nothing; its body has the size of a real key's (hb_live_ + 43). */
const bareKey = `hb_live_${'x'.repeat(43)}`;

const balanceRequest = (apiKey: string): JsonRequest => ({ path: '/balance/', body: { api_key: apiKey }, expectBody });

interface Case {
  store: BenchResult['store'];
  scenario: string;
  description: string;
  targetRatio: number | null;
}

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

async function withServer<T>(
  start: () => Promise<ServerProcess>,
  work: (server: ServerProcess) => Promise<T>,
): Promise<T> {
  const server = await start();
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

function toResult(c: Case, m: Measurement, baseline: number): BenchResult {
  const ratio = baseline > 0 ? m.requestsPerSecond / baseline : null;
  return {
    bench,
    ...c,
    ...m,
    ratioToBaseline: ratio,
    targetRatio: c.targetRatio,
    targetMet: c.targetRatio === null || ratio === null ? null : ratio >= c.targetRatio,
  };
}

async function measureStore(store: BenchStore, options: BenchOptions, baseline: number): Promise<BenchResult[]> {
  const keys = await provisionBalanceKeys(store);
  const out: BenchResult[] = [];
  const run = async (server: ServerProcess, c: Case, apiKey: string): Promise<void> => {
    progress(`${c.store} ${c.scenario}`);
    out.push(toResult(c, await measure(server, balanceRequest(apiKey), options), baseline));
  };
  const s = store.kind;
  await withServer(
    () => startHaberci(store, 0),
    async (server) => {
      await run(
        server,
        {
          store: s,
          scenario: 'no-limits',
          description: 'key with no request limits, rate limiter off',
          targetRatio: 1 / 2,
        },
        keys.unlimited,
      );
      await run(
        server,
        {
          store: s,
          scenario: 'all-limits',
          description: 'key with hourly, daily and monthly limits, rate limiter off',
          targetRatio: 1 / 3,
        },
        keys.limited,
      );
    },
  );
  await withServer(
    () => startHaberci(store, limiterOnRate),
    async (server) => {
      await run(
        server,
        {
          store: s,
          scenario: 'rate-limiter',
          description: `key with no request limits, rate limiter on (${limiterOnRate}/s)`,
          targetRatio: null,
        },
        keys.unlimited,
      );
      const where = s === 'postgres' ? 'counted in the store' : 'counted in memory';
      await run(
        server,
        {
          store: s,
          scenario: 'all-limits-rate',
          description: `key with hourly, daily and monthly limits, rate limiter on, ${where}`,
          targetRatio: 1 / 3,
        },
        keys.limited,
      );
    },
  );
  const redis = benchRedisUrl();
  if (redis !== '') {
    await withServer(
      () => startHaberci(store, limiterOnRate, ['--redis', redis]),
      async (server) => {
        await run(
          server,
          {
            store: s,
            scenario: 'all-limits-redis',
            description: 'key with hourly, daily and monthly limits, rate limiter on, counted in Redis',
            targetRatio: 1 / 3,
          },
          keys.limited,
        );
      },
    );
  }
  return out;
}

export async function benchBalance(options: BenchOptions = defaultBenchOptions): Promise<BenchResult[]> {
  progress('none bare');
  const bare = await withServer(startBareServer, (server) => measure(server, balanceRequest(bareKey), options));
  const results: BenchResult[] = [
    toResult(
      {
        store: 'none',
        scenario: 'bare',
        description: 'bare Fastify route, same JSON answer (baseline)',
        targetRatio: null,
      },
      bare,
      bare.requestsPerSecond,
    ),
  ];

  const stores: (() => Promise<BenchStore>)[] = [sqliteStore];
  const databaseUrl = benchDatabaseUrl();
  if (databaseUrl !== '') stores.push(() => postgresStore(databaseUrl));
  else progress('PostgreSQL skipped: set HABERCI_BENCH_DATABASE=postgres://... to measure it too');

  for (const open of stores) {
    const store = await open();
    try {
      results.push(...(await measureStore(store, options, bare.requestsPerSecond)));
    } finally {
      await store.dispose();
    }
  }
  return results;
}
