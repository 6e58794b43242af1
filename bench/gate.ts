/**
 * `npm run bench:gate [-- --rounds N] [--plant-us N] [--buckets] [--write]`: the CI gate on the hot path.
 * (One file, long because it is one measurement, from starting its servers to the verdict.)
 *
 * Measures the server CPU a request of `/balance/` and of `/sms/send` (`--worker false`:
 * accept only), the server CPU a message of a small end-to-end run through the built-in
 * simulator (accept, dispatch, receipt, all in one process; no webhook), and, with
 * `--buckets`, the same end to end with the key's webhook to a local receiver
 * (bench/webhook-receiver.ts) in buckets of 100 (`end-to-end-buckets`: a round ends when
 * every message is final, the receiver has every sms.sent and sms.delivered of the round
 * and the server has gone quiet), each as a ratio to the CPU a request of a bare Fastify
 * route measured in the same rounds. Ratios, not seconds: the machine's speed and what else
 * it runs move both sides alike. The rounds are interleaved (bare before each path, in a
 * rotating order); each path's lowest
 * round as a ratio to the bare route's lowest (see `measure`) is compared with its budget in
 * `bench/gate-budgets.json`; a path over its budget by more than its margin fails the gate
 * (exit 1).
 *
 * `--buckets` is not in CI's run yet: beside it, end to end measured 26.6, 20.5 and 27.5 on
 * 2026-12-02 (its limit 26.6), then 19.5 and 21.2 once a buckets round waits for its server
 * to go quiet; 14.4 and 17.6 without it the same hour. Until that is understood, by hand.
 * `--plant-us N` plants a regression: every HTTP request of the haberci servers spins N µs
 * more (a preload, bench/gate-plant.ts), to show the gate catches what it must.
 * `--write` writes the measured ratios as the new budgets (a decision: commit them with
 * the reason).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { z } from 'zod';
import { provisionBalanceKeys, provisionSender, sqliteStore, startBareServer, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { smsSendBody } from './lib/haberci-load.js';
import { cpuSecondsOf, pollUntil } from './lib/processes.js';
import { freePort, repoRoot, startServer } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';
import { StoreReader } from './lib/store-reader.js';

const budgetsFile = join(repoRoot, 'bench', 'gate-budgets.json');
const pathNames = ['balance', 'sms-send', 'end-to-end', 'end-to-end-buckets'] as const;
type PathName = (typeof pathNames)[number];

const budgetsSchema = z.object({
  budgets: z.record(
    z.enum(pathNames),
    z.object({ ratio: z.number().positive(), margin: z.number().positive().max(1), reason: z.string().min(1) }),
  ),
});
type Budgets = z.infer<typeof budgetsSchema>;

// Many short rounds rather than few long ones: the lowest of fifteen is steadier than the
// lowest of seven, for the same time.
const requestsPerRound = 1_500;
/**
 * The bare route's samples are longer: at about 19 µs a request, 1,500 requests were 28 ms
 * of CPU, and its lowest moved by 10 % from run to run, which moved every ratio with it.
 */
const bareRequestsPerRound = 5_000;
const messagesPerRound = 400;
const connections = 10;
const warmupRequests = 2_000;

function progress(text: string): void {
  process.stderr.write(`[gate] ${text}\n`);
}

const cpuOf = (server: ServerProcess): number => cpuSecondsOf(server.pid);

/** `amount` POSTs of one body; fails on any answer that is not a 200 with the result the path gives. */
async function post(server: ServerProcess, path: string, body: string, amount: number): Promise<void> {
  let refused = 0;
  const result = await autocannon({
    url: `${server.url}${path}`,
    connections,
    pipelining: 1,
    amount,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body,
        onResponse: (status, text) => {
          if (status !== 200 || !text.startsWith('{"result":true')) refused += 1;
        },
      },
    ],
  });
  if (result.errors + result.timeouts + result.non2xx + refused > 0)
    throw new Error(`${path}: ${result.errors} errors, ${result.timeouts} timeouts, ${refused} refused answers`);
}

/** Server CPU µs a request over `amount` requests. */
async function cpuPerRequest(server: ServerProcess, path: string, body: string, amount: number): Promise<number> {
  const before = cpuOf(server);
  await post(server, path, body, amount);
  return ((cpuOf(server) - before) * 1e6) / amount;
}

/** An end-to-end server: its sending key's body, its store read from outside, its webhook receiver's counter when it has one. */
interface EndToEndPath {
  server: ServerProcess;
  sendBody: string;
  reader: StoreReader;
  /** Distinct events the receiver has counted (inside the bucket bodies); absent without a webhook. */
  received?: () => Promise<number>;
}

interface Servers {
  bare: ServerProcess;
  accept: ServerProcess;
  balanceBody: string;
  acceptSendBody: string;
  endToEnd: EndToEndPath;
  /** With `--buckets` only. */
  buckets?: EndToEndPath;
  /** Every process started, the receiver too. */
  processes: ServerProcess[];
}

/** Until the process spends under 1 ms of CPU in 100 ms (at most 10 s). */
async function settled(server: ServerProcess): Promise<void> {
  let last: number | null = null;
  await pollUntil(
    () => {
      const now = cpuOf(server);
      const quiet = last !== null && now - last < 0.001;
      last = now;
      return quiet ? true : null;
    },
    100,
    10_000,
  );
}

/** Events a message gives with the simulator: sms.sent, then its outcome (sms.delivered). */
const eventsPerMessage = 2;

/**
 * Server CPU µs a message from accept to its final state, over `messagesPerRound` messages;
 * with a webhook, until the receiver also has every event of the round.
 */
async function cpuPerMessage(path: EndToEndPath): Promise<number> {
  const finalBefore = path.reader.final();
  const receivedBefore = (await path.received?.()) ?? 0;
  const before = cpuOf(path.server);
  await post(path.server, '/sms/send', path.sendBody, messagesPerRound);
  await pollUntil(() => (path.reader.final() >= finalBefore + messagesPerRound ? true : null), 20, 60_000);
  const received = path.received;
  if (received !== undefined) {
    const expected = receivedBefore + messagesPerRound * eventsPerMessage;
    const done = await pollUntil(async () => ((await received()) >= expected ? true : null), 20, 60_000);
    if (done === null) throw new Error(`the webhook receiver did not get ${expected - receivedBefore} events in 60 s`);
    // The server records each bucket's answer after the receiver has counted it: wait for
    // it to go quiet, so that tail is this path's CPU and not spilled into the next load's.
    await settled(path.server);
  }
  return ((cpuOf(path.server) - before) * 1e6) / messagesPerRound;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

interface Stores {
  accept: BenchStore;
  endToEnd: BenchStore;
  buckets: BenchStore;
}

async function withStores<T>(use: (stores: Stores) => Promise<T>): Promise<T> {
  const made: BenchStore[] = [];
  try {
    for (let i = 0; i < 3; i += 1) made.push(await sqliteStore());
    const [accept, endToEnd, buckets] = made as [BenchStore, BenchStore, BenchStore];
    return await use({ accept, endToEnd, buckets });
  } finally {
    for (const store of made.reverse()) await store.dispose();
  }
}

const receiverStats = z.object({ distinct: z.number() });

/** The smpp-e2e bench's receiver (bench/webhook-receiver.ts): answers 200 at once, counts distinct events. */
async function startReceiver(): Promise<{ process: Promise<ServerProcess>; port: number }> {
  const port = await freePort();
  const receiver = startServer(
    'webhook receiver',
    process.execPath,
    [join(repoRoot, 'dist', 'bench', 'webhook-receiver.js'), String(port)],
    port,
  );
  return { process: receiver, port };
}

/** The receiver and the server of `end-to-end-buckets` (stopped with the others through `start`). */
async function startBuckets(
  store: BenchStore,
  start: (server: Promise<ServerProcess>) => Promise<ServerProcess>,
): Promise<EndToEndPath> {
  const receiverStart = await startReceiver();
  await start(receiverStart.process);
  // Every event of the key to the receiver, in buckets of 100 (docs/webhooks.md, "Buckets").
  const sender = await provisionSender(store, 100_000_000, {
    url: `http://127.0.0.1:${receiverStart.port}/hook`,
    secret: 'bench-webhook-secret',
    batch: 100,
  });
  const server = await start(startHaberci(store, 0, ['--sim-delay-ms', '20', '--webhook-allow-private', 'true']));
  const statsUrl = `http://127.0.0.1:${receiverStart.port}/stats`;
  return {
    server,
    sendBody: smsSendBody(sender.apiKey),
    reader: new StoreReader(store.dataDir ?? ''),
    received: async () => receiverStats.parse(await (await fetch(statsUrl)).json()).distinct,
  };
}

async function startServers(stores: Stores, plantUs: number, withBuckets: boolean): Promise<Servers> {
  const keys = await provisionBalanceKeys(stores.accept);
  const sender = await provisionSender(stores.accept, 100_000_000);
  const endToEndSender = await provisionSender(stores.endToEnd, 100_000_000);
  const started: ServerProcess[] = [];
  const start = async (server: Promise<ServerProcess>): Promise<ServerProcess> => {
    started.push(await server);
    return started[started.length - 1] as ServerProcess;
  };
  try {
    const bare = await start(startBareServer());
    if (plantUs > 0) {
      process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${join(repoRoot, 'dist', 'bench', 'gate-plant.js')}`;
      process.env.HABERCI_GATE_PLANT_US = String(plantUs);
    }
    const acceptServer = await start(startHaberci(stores.accept, 0, ['--worker', 'false']));
    const endToEndServer = await start(startHaberci(stores.endToEnd, 0, ['--sim-delay-ms', '20']));
    const buckets = withBuckets ? await startBuckets(stores.buckets, start) : undefined;
    return {
      bare,
      accept: acceptServer,
      balanceBody: JSON.stringify({ api_key: keys.unlimited }),
      acceptSendBody: smsSendBody(sender.apiKey),
      endToEnd: {
        server: endToEndServer,
        sendBody: smsSendBody(endToEndSender.apiKey),
        reader: new StoreReader(stores.endToEnd.dataDir ?? ''),
      },
      ...(buckets === undefined ? {} : { buckets }),
      processes: started,
    };
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    throw error;
  }
}

async function stopServers(s: Servers): Promise<void> {
  s.endToEnd.reader.close();
  s.buckets?.reader.close();
  await Promise.all(s.processes.map((p) => p.stop()));
}

/** Server CPU µs of each load (bare and the four paths) in every round, in round order. */
type Samples = Record<'bare' | PathName, number[]>;

/**
 * The rounds: each measures the four paths in a rotating order, the bare route before each. The gate's figure for a path
 * is the ratio of its lowest round to the bare route's lowest round: what else the machine
 * runs (other processes, a noisy neighbour, CPU frequency) only ever adds CPU to a round, so
 * the least disturbed round is the truest, and a planted regression raises every round,
 * the lowest included. (The median of per-round ratios moved by 20-40 % between runs on a
 * loaded machine; the ratio of the lowest rounds by 3-5 % for the HTTP paths.)
 */
async function measure(s: Servers, rounds: number): Promise<Samples> {
  const bareBody = JSON.stringify({ api_key: `hb_live_${'x'.repeat(43)}` });
  progress('warming up (JIT, caches)');
  // The bare route warms up as long as the others: its first round was 3x its later ones.
  await post(s.bare, '/balance/', bareBody, warmupRequests * 2);
  await post(s.accept, '/balance/', s.balanceBody, warmupRequests);
  await post(s.accept, '/sms/send', s.acceptSendBody, warmupRequests);
  await cpuPerMessage(s.endToEnd);
  if (s.buckets !== undefined) await cpuPerMessage(s.buckets);

  const samples: Samples = { bare: [], balance: [], 'sms-send': [], 'end-to-end': [], 'end-to-end-buckets': [] };
  for (let round = 0; round < rounds; round += 1) {
    const loads: (() => Promise<['bare' | PathName, number]>)[] = [
      async () => ['bare', await cpuPerRequest(s.bare, '/balance/', bareBody, bareRequestsPerRound)],
      async () => ['balance', await cpuPerRequest(s.accept, '/balance/', s.balanceBody, requestsPerRound)],
      async () => ['sms-send', await cpuPerRequest(s.accept, '/sms/send', s.acceptSendBody, requestsPerRound)],
      async () => ['end-to-end', await cpuPerMessage(s.endToEnd)],
    ];
    const buckets = s.buckets;
    if (buckets !== undefined) loads.push(async () => ['end-to-end-buckets', await cpuPerMessage(buckets)]);
    const [bareLoad, ...pathLoads] = loads;
    for (let i = 0; i < pathLoads.length; i += 1) {
      const load = pathLoads[(round + i) % pathLoads.length];
      if (load === undefined || bareLoad === undefined) continue;
      // The bare route before every path: its lowest round is the denominator of every
      // ratio, so it gets four times the samples (at a fifth of a path's cost each).
      for (const next of [bareLoad, load]) {
        const [name, micros] = await next();
        samples[name].push(micros);
      }
    }
    const line = (['bare', ...pathNames] as const)
      .filter((n) => samples[n].length > 0)
      .map((n) => `${n} ${Math.min(...samples[n].slice(n === 'bare' ? -pathLoads.length : -1)).toFixed(1)}`);
    progress(`round ${round + 1}/${rounds}: µs ${line.join(', ')}`);
  }
  return samples;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '15' },
      'plant-us': { type: 'string', default: '0' },
      write: { type: 'boolean', default: false },
      buckets: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const plantUs = Number(values['plant-us']);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error('--rounds takes 1 to 50');
  if (!Number.isFinite(plantUs) || plantUs < 0) throw new Error('--plant-us takes a number of microseconds');
  const budgets: Budgets = budgetsSchema.parse(JSON.parse(await readFile(budgetsFile, 'utf8')));

  const started = Date.now();
  const samples = await withStores(async (stores) => {
    const servers = await startServers(stores, plantUs, values.buckets);
    try {
      return await measure(servers, rounds);
    } finally {
      await stopServers(servers);
    }
  });

  const bareLow = Math.min(...samples.bare);
  const figure = (name: PathName): number => Math.min(...samples[name]) / bareLow;
  let failed = false;
  const measuredPaths = pathNames.filter((name) => samples[name].length > 0);
  const rows = measuredPaths.map((name) => {
    const measured = figure(name);
    const budget = budgets.budgets[name];
    const limit = budget === undefined ? Number.POSITIVE_INFINITY : budget.ratio * (1 + budget.margin);
    const over = measured > limit;
    failed ||= over;
    const low = Math.min(...samples[name]);
    return `| ${name} | ${low.toFixed(1)} | ${median(samples[name]).toFixed(1)} | ${measured.toFixed(3)} | ${budget?.ratio.toFixed(3) ?? '-'} | ${limit.toFixed(3)} | ${over ? 'OVER' : 'ok'} |`;
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(
    [
      `bench:gate: ${rounds} rounds in ${seconds} s${plantUs > 0 ? `, planted ${plantUs} µs a request` : ''}; server CPU a request (a message end to end), lowest round as a ratio to the bare Fastify route's lowest (${bareLow.toFixed(1)} µs)`,
      '',
      '| path | lowest µs | median µs | ratio | budget | limit (budget + margin) | |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...rows,
      '',
    ].join('\n'),
  );

  if (values.write) {
    const next: Budgets = {
      budgets: Object.fromEntries(
        pathNames.map((name) => [
          name,
          {
            // A path not measured (end-to-end-buckets without --buckets) keeps its budget.
            ratio: measuredPaths.includes(name) ? Number(figure(name).toFixed(3)) : (budgets.budgets[name]?.ratio ?? 1),
            margin: budgets.budgets[name]?.margin ?? 0.1,
            reason: budgets.budgets[name]?.reason ?? 'measured',
          },
        ]),
      ) as Budgets['budgets'],
    };
    await writeFile(budgetsFile, `${JSON.stringify(next, null, 2)}\n`);
    process.stdout.write(`wrote ${budgetsFile}: say why in the commit\n`);
    return;
  }
  if (failed) {
    process.stdout.write(
      'bench:gate FAILED: a path spends more server CPU than its budget allows. If the change must spend it, raise the budget in bench/gate-budgets.json in the same commit and say why.\n',
    );
    process.exitCode = 1;
  }
}

await main();
