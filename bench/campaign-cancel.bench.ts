/**
 * Issue 45: a cancel of a running 50,000-message send answers within 1 s. `haberci serve`
 * against `haberci smsc-sim` over one SMPP connection paced at 50 submits a second (the
 * carrier-fairness rig), on SQLite and, with HABERCI_BENCH_DATABASE, on PostgreSQL.
 *
 * Each round: a /group/send of 50,000 numbers, 5 s of sending (its list written out, about
 * 250 submitted), then /group/cancel, timed from request to answer. Then, once the cancel is
 * settled: sent + cancelled = accepted, the credit given back equals the cancelled messages'
 * SMS, and the submits the simulator saw after the answer are counted (none: the dispatcher
 * gives back what it claimed and had not submitted). Three rounds a store, the median answer
 * judged. HABERCI_BENCH_STORES=postgres (or sqlite) runs one store only.
 */
import { join } from 'node:path';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure, judged } from './lib/bench.js';
import { postgresStore, provisionSender, sqliteStore, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { benchDatabaseUrl } from './lib/settings.js';
import { sleep } from './lib/processes.js';
import { post, seenAt, simAndConfig } from './carrier-fairness.bench.js';

const bench = 'campaign-cancel';
const recipients = 50_000;
const rounds = 3;

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

function numbers(round: number): string[] {
  return Array.from({ length: recipients }, (_, i) => `9053${round}${String(i).padStart(7, '0')}`);
}

interface Round {
  answerMs: number;
  cancelled: number;
  refunded: number;
  sentBefore: number;
  afterAnswer: number;
  exact: boolean;
}

async function oneRound(url: string, stats: string, apiKey: string, round: number): Promise<Round> {
  const list = numbers(round);
  const before = Number((await post(`${url}/balance/`, { api_key: apiKey })).balance_main);
  const sent = await post(`${url}/group/send`, { api_key: apiKey, title: 'BENCH', text: 'campaign', sentto: list });
  if (sent.result_code !== 'TS-1024') throw new Error(`group send: ${JSON.stringify(sent)}`);
  await sleep(5000);
  const started = performance.now();
  const cancel = await post(`${url}/group/cancel`, { api_key: apiKey, rapor_id: sent.rapor_id });
  const answerMs = performance.now() - started;
  const answeredAt = Date.now();
  if (cancel.result_code !== 'TS-1064') throw new Error(`group cancel: ${JSON.stringify(cancel)}`);
  const cancelled = Number(cancel.cancelled);
  // Settled: every message cancelled or final (what the dispatcher had claimed before the
  // answer runs its course at the link's pace, and its receipts come back).
  let basic: Record<string, unknown> = {};
  for (let i = 0; i < 240; i++) {
    basic = await post(`${url}/reports/basic`, { api_key: apiKey, raporid: sent.rapor_id });
    if (Number(basic.cancelled_count) === cancelled && Number(basic.pending_count) === 0) break;
    await sleep(500);
  }
  const at = await seenAt({ stats });
  const mine = list.filter((n) => at.has(n));
  const afterAnswer = mine.filter((n) => (at.get(n) ?? 0) > answeredAt).length;
  const after = Number((await post(`${url}/balance/`, { api_key: apiKey })).balance_main);
  const exact =
    mine.length + cancelled === recipients &&
    Number(basic.cancelled_count) === cancelled &&
    Number(cancel.refunded) === cancelled &&
    before - after === recipients - cancelled;
  return { answerMs, cancelled, refunded: Number(cancel.refunded), sentBefore: mine.length, afterAnswer, exact };
}

async function onStore(kind: string, store: BenchStore, faults: string[]): Promise<Figure[]> {
  const config = join(store.dataDir ?? '/tmp', `cancel-smpp-${process.pid}.json`);
  const { sim, stats } = await simAndConfig(config);
  const key = await provisionSender(store, 1_000_000);
  const server = await startHaberci(store, 0, ['--smpp-config', config]);
  try {
    const results: Round[] = [];
    for (let round = 1; round <= rounds; round++) {
      const r = await oneRound(server.url, stats, key.apiKey, round);
      progress(
        `${kind} round ${round}: answered in ${r.answerMs.toFixed(0)} ms, ${r.cancelled} cancelled, ${r.sentBefore} sent, ${r.afterAnswer} submitted after the answer, exact: ${r.exact}`,
      );
      if (!r.exact) faults.push(`${bench} ${kind} round ${round}: counts do not add up`);
      results.push(r);
    }
    const answers = results.map((r) => r.answerMs).sort((a, b) => a - b);
    return [
      judged(
        figure(
          bench,
          `haberci ${kind}, one connection at 50/s`,
          '/group/cancel of a running 50,000 send: answer, median of 3',
          answers[1] ?? Number.NaN,
          'ms',
          `each: ${results.map((r) => r.answerMs.toFixed(0)).join(', ')} ms; submitted after the answer: ${results.map((r) => r.afterAnswer).join(', ')}`,
        ),
        '<= 1000 ms',
        (v) => v <= 1000,
      ),
    ];
  } finally {
    await server.stop();
    await sim.stop();
  }
}

export async function benchCampaignCancel(_options: BenchOptions): Promise<BenchOutput> {
  const figures: Figure[] = [];
  const faults: string[] = [];
  const only = process.env.HABERCI_BENCH_STORES ?? '';
  if (only !== 'postgres') {
    const sqlite = await sqliteStore();
    try {
      figures.push(...(await onStore('sqlite', sqlite, faults)));
    } finally {
      await sqlite.dispose();
    }
  }
  const url = benchDatabaseUrl();
  if (url !== '' && only !== 'sqlite') {
    const pg = await postgresStore(url);
    try {
      figures.push(...(await onStore('postgres', pg, faults)));
    } finally {
      await pg.dispose();
    }
  }
  return { results: [], figures, faults };
}
