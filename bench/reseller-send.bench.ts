/**
 * Issue 46: a send from a reseller's customer costs no more than a send from a flat account
 * beyond noise (the hierarchy is not walked on the hot path). One `serve --worker false` on
 * a fresh SQLite store, two accounts with the same balance and sender ID: a flat account, and
 * a customer of a reseller. Single-recipient /sms/send, N requests over C connections, the
 * accounts loaded in turn, A B then B A, so the shared machine's drift falls on both alike.
 * Figures: each side's median server CPU per accepted request and accept rate, and the
 * ratios customer / flat. Judged: the median of the rounds' CPU ratios at most 1.10.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure, judged } from './lib/bench.js';
import { sqliteStore, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { smsSendBody } from './lib/haberci-load.js';
import { runHey } from './lib/hey.js';
import { repoRoot } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';

const bench = 'reseller-send';
const rounds = 6;
const requests = 2_000;
const warmup = 1_000;
const connections = 10;
const run = promisify(execFile);

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

async function admin(store: BenchStore, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(join(repoRoot, 'bin', 'haberci'), ['admin', ...args, ...store.flags], {
    cwd: repoRoot,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

interface Side {
  name: 'flat' | 'customer';
  body: string;
  cpuMicros: number[];
  rates: number[];
}

/** An account with `balance` credit, sender ID BENCH and a key; under `parent` when given. */
async function sender(store: BenchStore, name: Side['name'], balance: number, parent?: string): Promise<Side> {
  const under = parent === undefined ? [] : ['--parent', parent];
  const account = await admin(store, ['account', 'create', '--name', name, '--balance', String(balance), ...under]);
  const id = String(account.id);
  await admin(store, ['sender-id', 'add', '--account', id, '--title', 'BENCH']);
  const key = await admin(store, ['key', 'create', '--account', id]);
  return { name, body: smsSendBody(String(key.api_key)), cpuMicros: [], rates: [] };
}

async function load(server: ServerProcess, s: Side, n: number): Promise<{ rps: number; cpuMicros: number | null }> {
  const cpu0 = server.cpuSeconds();
  const hey = await runHey({ url: `${server.url}/sms/send`, requests: n, connections, body: s.body });
  const cpu1 = server.cpuSeconds();
  if (hey.non2xx > 0 || hey.errors > 0) throw new Error(`${s.name}: ${hey.non2xx} non-2xx, ${hey.errors} errors`);
  return { rps: hey.requestsPerSecond, cpuMicros: cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) * 1e6) / n : null };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const list = (values: readonly number[], digits = 0): string => values.map((v) => v.toFixed(digits)).join(', ');

export async function benchResellerSend(_options: BenchOptions): Promise<BenchOutput> {
  const store = await sqliteStore();
  const figures: Figure[] = [];
  try {
    const balance = rounds * requests + warmup + 10_000;
    const flat = await sender(store, 'flat', balance);
    const reseller = String((await admin(store, ['account', 'create', '--name', 'Reseller', '--balance', '0'])).id);
    await admin(store, ['account', 'update', '--id', reseller, '--reseller', 'true']);
    const customer = await sender(store, 'customer', balance, reseller);
    // Accepting only: the dispatcher's work would fall on whichever round follows.
    const server = await startHaberci(store, 0, ['--worker', 'false']);
    try {
      for (const s of [flat, customer]) {
        progress(`${s.name}: warm-up, ${warmup} requests`);
        await load(server, s, warmup);
      }
      for (let round = 1; round <= rounds; round++) {
        const order = round % 2 === 1 ? [flat, customer] : [customer, flat];
        for (const s of order) {
          const { rps, cpuMicros } = await load(server, s, requests);
          s.rates.push(rps);
          if (cpuMicros !== null) s.cpuMicros.push(cpuMicros);
          progress(
            `round ${round}, ${s.name}: ${rps.toFixed(0)} req/s, ${cpuMicros?.toFixed(0) ?? '-'} µs CPU a request`,
          );
        }
      }
    } finally {
      await server.stop();
    }
    const cpuPairs = customer.cpuMicros.map((v, i) => v / (flat.cpuMicros[i] ?? v));
    const ratePairs = customer.rates.map((v, i) => v / (flat.rates[i] ?? v));
    const scenario = `haberci sqlite, /sms/send, ${rounds} interleaved rounds of ${requests} over ${connections} connections`;
    for (const s of [flat, customer])
      figures.push(
        figure(
          bench,
          scenario,
          `${s.name}: server CPU a request, median`,
          median(s.cpuMicros),
          'µs',
          list(s.cpuMicros),
        ),
        figure(bench, scenario, `${s.name}: accept rate, median`, median(s.rates), 'req/s', list(s.rates)),
      );
    figures.push(
      figure(
        bench,
        scenario,
        'customer / flat: accept rate, median of the rounds',
        median(ratePairs),
        'x',
        list(ratePairs, 2),
      ),
      judged(
        figure(
          bench,
          scenario,
          'customer / flat: server CPU a request, median of the rounds',
          cpuPairs.length > 0 ? median(cpuPairs) : null,
          'x',
          list(cpuPairs, 2),
        ),
        '<= 1.10x',
        (v) => v <= 1.1,
      ),
    );
  } finally {
    await store.dispose();
  }
  return { results: [], figures, faults: [] };
}
