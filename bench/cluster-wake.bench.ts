/**
 * Issue 24: accept to submit across processes on PostgreSQL. A process that only answers
 * HTTP (`--worker false`) accepts single /sms/send requests one at a time, a random 20 to
 * 120 ms apart; a second process (the worker) submits them to the simulator. The time from
 * a message's commit (`created_at`) to its submit record (`submitted_at`, both written on
 * this machine's clock) is read from the store afterwards: with NOTIFY (the default) and
 * without (`--notify false`: the worker finds messages at its next poll, every
 * `--dispatch-poll-ms`, default 200). The two cases alternate, twice each.
 */
import pg from 'pg';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { postgresStore, provisionSender, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { benchDatabaseUrl } from './lib/settings.js';

const bench = 'cluster-wake';
/** Messages per round. */
const perRound = 150;
const rounds = 2;

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** One round: both processes started on the store, `perRound` messages, their accept-to-submit times (ms). */
async function round(
  store: BenchStore,
  apiKey: string,
  notify: boolean,
  offset: number,
  faults: string[],
): Promise<number[]> {
  const worker = await startHaberci(store, 0, ['--sim-delay-ms', '50']);
  const front = await startHaberci(store, 0, ['--worker', 'false', '--notify', String(notify)]);
  const ids: number[] = [];
  try {
    for (let i = 0; i < perRound; i++) {
      const to = `0532${String(1_000_000 + offset + i).slice(-7)}`;
      const answer = await post(`${front.url}/sms/send`, {
        api_key: apiKey,
        sentto: to,
        title: 'BENCH',
        text: 'wake',
        sms_lang: 0,
      });
      if (answer.result_code !== 'TS-1024') faults.push(`send ${i}: ${JSON.stringify(answer)}`);
      else ids.push(Number(answer.sms_id));
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 100));
    }
    // Every message submitted (a poll interval at most after the last).
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    await front.stop();
    await worker.stop();
  }
  const url = store.flags[1] ?? '';
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ ms: string | null }>(
      'select submitted_at - created_at as ms from messages where id = any($1::bigint[])',
      [ids],
    );
    const missing = rows.filter((r) => r.ms === null).length + (ids.length - rows.length);
    if (missing > 0) faults.push(`${missing} messages not submitted (notify ${notify})`);
    return rows.filter((r) => r.ms !== null).map((r) => Number(r.ms));
  } finally {
    await client.end();
  }
}

export async function benchClusterWake(_options: BenchOptions): Promise<BenchOutput> {
  const figures: Figure[] = [];
  const faults: string[] = [];
  const databaseUrl = benchDatabaseUrl();
  if (databaseUrl === '') {
    progress('skipped: set HABERCI_BENCH_DATABASE=postgres://... (the bench needs PostgreSQL)');
    return { results: [], figures, faults };
  }
  const store = await postgresStore(databaseUrl);
  try {
    const sender = await provisionSender(store, 10_000);
    const times = new Map<boolean, number[]>([
      [true, []],
      [false, []],
    ]);
    let offset = 0;
    for (let r = 0; r < rounds; r++) {
      for (const notify of [true, false]) {
        progress(`round ${r + 1}, NOTIFY ${notify ? 'on' : 'off'}`);
        times.get(notify)?.push(...(await round(store, sender.apiKey, notify, offset, faults)));
        offset += perRound;
      }
    }
    for (const [notify, list] of times) {
      const sorted = [...list].sort((a, b) => a - b);
      const scenario = notify ? 'NOTIFY' : 'poll only (--notify false, poll 200 ms)';
      const notes = `${sorted.length} messages, HTTP-only process to worker process`;
      figures.push({
        bench,
        scenario,
        measure: 'accept to submit, median',
        value: percentile(sorted, 0.5),
        unit: 'ms',
        target: null,
        targetMet: null,
        notes,
      });
      figures.push({
        bench,
        scenario,
        measure: 'accept to submit, p95',
        value: percentile(sorted, 0.95),
        unit: 'ms',
        target: null,
        targetMet: null,
        notes,
      });
      figures.push({
        bench,
        scenario,
        measure: 'accept to submit, max',
        value: sorted[sorted.length - 1] ?? null,
        unit: 'ms',
        target: null,
        targetMet: null,
        notes,
      });
    }
  } finally {
    await store.dispose();
  }
  return { results: [], figures, faults };
}
