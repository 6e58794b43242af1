/**
 * Issue 22: what the metrics cost the accept path. Two servers on fresh SQLite stores, one
 * with `--ops-port` (every thread counts, /metrics scraped every 5 s during the load, as a
 * Prometheus would) and one without (no-op ports, nothing counted), loaded in turn, A B A B
 * ...: single-recipient /sms/send, N requests over C connections, each round after the
 * previous one's messages are delivered. Figures: each round's accept rate, and the ratio of
 * the medians (on / off). Target: the metrics cost at most 3 % (ratio >= 0.97). Both
 * servers run during the whole bench; only one is loaded at a time.
 */
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure, judged } from './lib/bench.js';
import { provisionSender, sqliteStore, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { smsSendBody } from './lib/haberci-load.js';
import { runHey } from './lib/hey.js';
import { freePort } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';
import { settle } from './lib/machine.js';
import { pollUntil } from './lib/processes.js';
import { StoreReader } from './lib/store-reader.js';
import { PrometheusMetrics } from '../src/adapters/metrics/prometheus-metrics.js';

const bench = 'metrics-cost';
const rounds = 6;
const warmup = 2_000;

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

interface Side {
  name: 'metrics on' | 'metrics off';
  store: BenchStore;
  server: ServerProcess;
  body: string;
  reader: StoreReader;
  /** GET /metrics of the operations listener (metrics on only). */
  ops: string | null;
  sent: number;
  rates: number[];
  /** Server CPU (all threads) per accepted request during each round's load, in µs. */
  cpuMicros: number[];
}

async function side(name: Side['name'], balance: number): Promise<Side> {
  const store = await sqliteStore();
  const key = await provisionSender(store, balance);
  const opsPort = name === 'metrics on' ? await freePort() : null;
  const server = await startHaberci(store, 0, [
    '--sim-delay-ms',
    '300',
    ...(opsPort === null ? [] : ['--ops-port', String(opsPort)]),
  ]);
  return {
    name,
    store,
    server,
    body: smsSendBody(key.apiKey),
    reader: new StoreReader(store.dataDir ?? ''),
    ops: opsPort === null ? null : `http://127.0.0.1:${opsPort}/metrics`,
    sent: 0,
    rates: [],
    cpuMicros: [],
  };
}

async function load(
  s: Side,
  requests: number,
  connections: number,
): Promise<{ rps: number; cpuMicros: number | null }> {
  const cpu0 = s.server.cpuSeconds();
  let scraping = true;
  const scrapes = (async () => {
    while (scraping && s.ops !== null) {
      await fetch(s.ops).then((r) => r.text());
      await new Promise((r) => setTimeout(r, 5_000));
    }
  })();
  const hey = await runHey({ url: `${s.server.url}/sms/send`, requests, connections, body: s.body });
  const cpu1 = s.server.cpuSeconds();
  scraping = false;
  await scrapes;
  if (hey.non2xx > 0 || hey.errors > 0) throw new Error(`${s.name}: ${hey.non2xx} non-2xx, ${hey.errors} errors`);
  s.sent += requests;
  // The next round starts once this one's messages are delivered, on either side.
  await pollUntil(() => (s.reader.final() >= s.sent ? true : null), 100, 300_000);
  return {
    rps: hey.requestsPerSecond,
    cpuMicros: cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) * 1e6) / requests : null,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/**
 * The HTTP thread's metric calls of one accepted /sms/send, in this process, a million times:
 * the API's request count and duration, the accepted message, a write-lock wait (one per
 * transaction in fact, a batch of requests: an upper bound). And one scrape of the registry.
 * A bound on the per-request cost that the machine's noise does not move much.
 */
async function inProcess(): Promise<Figure[]> {
  const metrics = new PrometheusMetrics();
  const calls = 1_000_000;
  const once = (i: number): void => {
    metrics.request('/sms/send', 'TS-1024', 0.002 + (i % 7) * 0.001);
    metrics.thread.messages('accepted', 1);
    metrics.thread.writeLockWait(0.0001);
  };
  for (let i = 0; i < 100_000; i++) once(i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) once(i);
  const perRequestNs = Number(process.hrtime.bigint() - started) / calls;
  const scrapeStarted = process.hrtime.bigint();
  await metrics.exposition();
  const scrapeMs = Number(process.hrtime.bigint() - scrapeStarted) / 1e6;
  return [
    figure(
      bench,
      'in process',
      'metric calls of one accepted request',
      perRequestNs / 1000,
      'µs',
      'API count and duration, the accepted message, a write-lock wait',
    ),
    figure(
      bench,
      'in process',
      "one scrape of the HTTP thread's registry",
      scrapeMs,
      'ms',
      "without the job threads' answers or the backlog query",
    ),
  ];
}

export async function benchMetricsCost(options: BenchOptions): Promise<BenchOutput> {
  const n = options.messages;
  const c = options.connections;
  const balance = rounds * n + warmup + 10_000;
  const sides = [await side('metrics on', balance), await side('metrics off', balance)] as const;
  const figures: Figure[] = await inProcess();
  try {
    for (const s of sides) {
      progress(`${s.name}: warm-up, ${warmup} requests`);
      await load(s, warmup, 10);
    }
    await settle(options.quietWaitSeconds);
    for (let round = 1; round <= rounds; round++) {
      // A B, then B A: neither side always goes first.
      const order = round % 2 === 1 ? sides : ([sides[1], sides[0]] as const);
      for (const s of order) {
        progress(`round ${round}, ${s.name}: ${n} requests over ${c} connections`);
        const { rps, cpuMicros } = await load(s, n, c);
        s.rates.push(rps);
        if (cpuMicros !== null) s.cpuMicros.push(cpuMicros);
        figures.push(
          figure(
            bench,
            s.name,
            `HTTP accept, round ${round}`,
            rps,
            'req/s',
            `server CPU ${cpuMicros?.toFixed(0) ?? '-'} µs a request during the load`,
          ),
        );
      }
    }
    const [on, off] = sides;
    const ratio = median(on.rates) / median(off.rates);
    const pairs = on.rates.map((r, i) => r / (off.rates[i] ?? r));
    figures.push(
      figure(
        bench,
        'metrics on',
        'HTTP accept, median',
        median(on.rates),
        'req/s',
        on.rates.map((r) => r.toFixed(0)).join(', '),
      ),
      figure(
        bench,
        'metrics off',
        'HTTP accept, median',
        median(off.rates),
        'req/s',
        off.rates.map((r) => r.toFixed(0)).join(', '),
      ),
      figure(
        bench,
        'on / off',
        "HTTP accept ratio, median of the rounds' ratios",
        median(pairs),
        'x',
        pairs.map((r) => r.toFixed(2)).join(', '),
      ),
      figure(
        bench,
        'on / off',
        'server CPU per request, ratio of medians',
        median(off.cpuMicros) > 0 ? median(on.cpuMicros) / median(off.cpuMicros) : null,
        'x',
        `on ${on.cpuMicros.map((v) => v.toFixed(0)).join(', ')} µs; off ${off.cpuMicros.map((v) => v.toFixed(0)).join(', ')} µs`,
      ),
      judged(
        figure(
          bench,
          'on / off',
          'HTTP accept ratio (medians)',
          ratio,
          'x',
          `the metrics cost ${((1 - ratio) * 100).toFixed(1)} % of the accept rate; ${rounds} rounds each, interleaved`,
        ),
        '>= 0.97',
        (v) => v >= 0.97,
      ),
    );
  } finally {
    for (const s of sides) {
      s.reader.close();
      await s.server.stop();
      await s.store.dispose();
    }
  }
  return { results: [], figures, faults: [] };
}
