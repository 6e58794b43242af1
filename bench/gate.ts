/**
 * `npm run bench:gate [-- --rounds N] [--plant-us N] [--write]`: the CI gate on the hot path.
 *
 * Measures the server CPU a request of `/balance/` and of `/sms/send` (`--worker false`:
 * accept only), and the server CPU a message of a small end-to-end run through the
 * built-in simulator (accept, dispatch, receipt, all in one process), each as a ratio to
 * the CPU a request of a bare Fastify route measured in the same rounds. Ratios, not
 * seconds: the machine's speed and what else it runs move both sides alike. The rounds are
 * interleaved (bare, balance, send, end to end, in a rotating order) and the median ratio
 * of each path is compared with its budget in `bench/gate-budgets.json`; a path over its
 * budget by more than the file's margin fails the gate (exit 1).
 *
 * `--plant-us N` plants a regression: every HTTP request of the haberci servers spins N µs
 * more (a preload, bench/gate-plant.ts), to show the gate catches what it must.
 * `--write` writes the measured medians as the new budgets (a decision: commit them with
 * the reason).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { z } from 'zod';
import { provisionBalanceKeys, provisionSender, sqliteStore, startBareServer, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { smsSendBody } from './lib/haberci-load.js';
import { pollUntil } from './lib/processes.js';
import { repoRoot } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';
import { StoreReader } from './lib/store-reader.js';

const budgetsFile = join(repoRoot, 'bench', 'gate-budgets.json');
const pathNames = ['balance', 'sms-send', 'end-to-end'] as const;
type PathName = (typeof pathNames)[number];

const budgetsSchema = z.object({
  margin: z.number().positive().max(1),
  budgets: z.record(z.enum(pathNames), z.object({ ratio: z.number().positive(), reason: z.string().min(1) })),
});
type Budgets = z.infer<typeof budgetsSchema>;

const requestsPerRound = 3_000;
const messagesPerRound = 1_000;
const connections = 10;
const warmupRequests = 2_000;

function progress(text: string): void {
  process.stderr.write(`[gate] ${text}\n`);
}

/**
 * CPU seconds of every thread of the server, from the scheduler's nanosecond counters
 * (`/proc/PID/task/TID/schedstat`): `/proc/PID/stat` counts in 10 ms ticks, too coarse
 * for a round of a few hundred milliseconds.
 */
function cpuOf(server: ServerProcess): number {
  const tasks = `/proc/${server.pid}/task`;
  if (!existsSync(tasks)) throw new Error('the gate reads server CPU from /proc, which this machine lacks');
  let nanos = 0;
  for (const task of readdirSync(tasks)) {
    try {
      nanos += Number(readFileSync(`${tasks}/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return nanos / 1e9;
}

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

interface Servers {
  bare: ServerProcess;
  accept: ServerProcess;
  endToEnd: ServerProcess;
  balanceBody: string;
  acceptSendBody: string;
  endToEndSendBody: string;
  reader: StoreReader;
}

/** Server CPU µs a message from accept to its final state, over `messagesPerRound` messages. */
async function cpuPerMessage(s: Servers): Promise<number> {
  const finalBefore = s.reader.final();
  const before = cpuOf(s.endToEnd);
  await post(s.endToEnd, '/sms/send', s.endToEndSendBody, messagesPerRound);
  await pollUntil(() => (s.reader.final() >= finalBefore + messagesPerRound ? true : null), 20, 60_000);
  return ((cpuOf(s.endToEnd) - before) * 1e6) / messagesPerRound;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function withStores<T>(use: (accept: BenchStore, endToEnd: BenchStore) => Promise<T>): Promise<T> {
  const accept = await sqliteStore();
  try {
    const endToEnd = await sqliteStore();
    try {
      return await use(accept, endToEnd);
    } finally {
      await endToEnd.dispose();
    }
  } finally {
    await accept.dispose();
  }
}

async function startServers(accept: BenchStore, endToEnd: BenchStore, plantUs: number): Promise<Servers> {
  const keys = await provisionBalanceKeys(accept);
  const sender = await provisionSender(accept, 100_000_000);
  const endToEndSender = await provisionSender(endToEnd, 100_000_000);
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
    const acceptServer = await start(startHaberci(accept, 0, ['--worker', 'false']));
    const endToEndServer = await start(startHaberci(endToEnd, 0, ['--sim-delay-ms', '20']));
    return {
      bare,
      accept: acceptServer,
      endToEnd: endToEndServer,
      balanceBody: JSON.stringify({ api_key: keys.unlimited }),
      acceptSendBody: smsSendBody(sender.apiKey),
      endToEndSendBody: smsSendBody(endToEndSender.apiKey),
      reader: new StoreReader(endToEnd.dataDir ?? ''),
    };
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    throw error;
  }
}

async function stopServers(s: Servers): Promise<void> {
  s.reader.close();
  await Promise.all([s.bare.stop(), s.accept.stop(), s.endToEnd.stop()]);
}

/** The rounds: each measures the four loads in a rotating order; the ratios are per round. */
async function measureRatios(s: Servers, rounds: number): Promise<Record<PathName, number[]>> {
  const bareBody = JSON.stringify({ api_key: `hb_live_${'x'.repeat(43)}` });
  progress('warming up (JIT, caches)');
  await post(s.bare, '/balance/', bareBody, warmupRequests);
  await post(s.accept, '/balance/', s.balanceBody, warmupRequests);
  await post(s.accept, '/sms/send', s.acceptSendBody, warmupRequests);
  await cpuPerMessage(s);

  const ratios: Record<PathName, number[]> = { balance: [], 'sms-send': [], 'end-to-end': [] };
  for (let round = 0; round < rounds; round += 1) {
    const loads: (() => Promise<[string, number]>)[] = [
      async () => ['bare', await cpuPerRequest(s.bare, '/balance/', bareBody, requestsPerRound)],
      async () => ['balance', await cpuPerRequest(s.accept, '/balance/', s.balanceBody, requestsPerRound)],
      async () => ['sms-send', await cpuPerRequest(s.accept, '/sms/send', s.acceptSendBody, requestsPerRound)],
      async () => ['end-to-end', await cpuPerMessage(s)],
    ];
    const measured = new Map<string, number>();
    for (let i = 0; i < loads.length; i += 1) {
      const load = loads[(round + i) % loads.length];
      if (load === undefined) continue;
      const [name, micros] = await load();
      measured.set(name, micros);
    }
    const bare = measured.get('bare') ?? Number.NaN;
    const line = pathNames.map((name) => {
      const ratio = (measured.get(name) ?? Number.NaN) / bare;
      ratios[name].push(ratio);
      return `${name} ${ratio.toFixed(2)}`;
    });
    const raw = pathNames.map((name) => `${name} ${(measured.get(name) ?? 0).toFixed(1)}`).join(', ');
    progress(`round ${round + 1}/${rounds}: bare ${bare.toFixed(1)} µs a request; ratios ${line.join(', ')}; µs ${raw}`);
  }
  return ratios;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '7' },
      'plant-us': { type: 'string', default: '0' },
      write: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const plantUs = Number(values['plant-us']);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error('--rounds takes 1 to 50');
  if (!Number.isFinite(plantUs) || plantUs < 0) throw new Error('--plant-us takes a number of microseconds');
  const budgets: Budgets = budgetsSchema.parse(JSON.parse(await readFile(budgetsFile, 'utf8')));

  const started = Date.now();
  const ratios = await withStores(async (accept, endToEnd) => {
    const servers = await startServers(accept, endToEnd, plantUs);
    try {
      return await measureRatios(servers, rounds);
    } finally {
      await stopServers(servers);
    }
  });

  let failed = false;
  const rows = pathNames.map((name) => {
    const measured = median(ratios[name]);
    const budget = budgets.budgets[name];
    const limit = budget === undefined ? Number.POSITIVE_INFINITY : budget.ratio * (1 + budgets.margin);
    const over = measured > limit;
    failed ||= over;
    const spread = `${Math.min(...ratios[name]).toFixed(2)}–${Math.max(...ratios[name]).toFixed(2)}`;
    return `| ${name} | ${measured.toFixed(3)} | ${spread} | ${budget?.ratio.toFixed(3) ?? '-'} | ${limit.toFixed(3)} | ${over ? 'OVER' : 'ok'} |`;
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(
    [
      `bench:gate: ${rounds} rounds in ${seconds} s${plantUs > 0 ? `, planted ${plantUs} µs a request` : ''}; server CPU as a ratio to a bare Fastify route`,
      '',
      '| path | median ratio | range | budget | limit (budget + margin) | |',
      '|---|---:|---|---:|---:|---|',
      ...rows,
      '',
    ].join('\n'),
  );

  if (values.write) {
    const next: Budgets = {
      margin: budgets.margin,
      budgets: Object.fromEntries(
        pathNames.map((name) => [
          name,
          { ratio: Number(median(ratios[name]).toFixed(3)), reason: budgets.budgets[name]?.reason ?? 'measured' },
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
