/**
 * Issue 4: /group/send of 50,000 distinct numbers on SQLite, with the dispatcher and the
 * built-in simulator (300 ms receipts) running in the server.
 * (a) the time to the response, over 5 sends into one server, each sent when the previous
 *     one is fully submitted and the machine is quiet (median; target <= 300 ms), and the
 *     time until all 50,000 are submitted to the simulator (the store, read-only, polled
 *     every 100 ms: messages of the send past `submitting`);
 * (b) the server's peak RSS during each send (VmRSS every 50 ms, from the request until all
 *     are submitted) above its RSS just before (target <= 150 MB);
 * (c) /reports/detailed page 100 (the last) of a real 50,000-recipient send in a store of
 *     1,000,000 messages: 950,000 of 19 finished campaigns written straight into the stopped
 *     server's store (bench/lib/store-filler.ts), then the real send, delivered; 200
 *     requests one after another (median; target <= 20 ms);
 * (d) single /sms/send latency (5 connections, 200 req/s in all, 10 s) while a 50,000-number
 *     send is dispatching, beside the same load with nothing else running.
 */
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure, judged } from './lib/bench.js';
import { provisionSender, sqliteStore, startHaberci } from './lib/haberci.js';
import type { BenchStore, SendingKey } from './lib/haberci.js';
import { loadSmsSend, postJson, smsSendBody } from './lib/haberci-load.js';
import { settle } from './lib/machine.js';
import { residentMb, watchPeakRss } from './lib/memory.js';
import { pollUntil } from './lib/processes.js';
import type { ServerProcess } from './lib/server-process.js';
import { fillDeliveredCampaigns, keyIdOf } from './lib/store-filler.js';
import { StoreReader } from './lib/store-reader.js';

const bench = 'bulk';
const recipients = 50_000;
const sends = 5;
const reportRequests = 200;
const filledCampaigns = 19;

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

/** 50,000 distinct Turkcell numbers starting at `first` (none ends in 0000-0002: all delivered). */
function numbers(first: number, count = recipients): string[] {
  const out: string[] = [];
  for (let i = first; out.length < count; i++) if (i % 10_000 > 2) out.push(`90533${String(i).padStart(7, '0')}`);
  return out;
}

function groupSendBody(apiKey: string, list: readonly string[]): string {
  return JSON.stringify({
    api_key: apiKey,
    title: 'BENCH',
    text: 'Benchmark campaign message',
    sms_lang: 0,
    sentto: list,
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

interface SendTiming {
  responseMs: number;
  submittedSeconds: number | null;
  idleMb: number | null;
  peakMb: number | null;
  sendId: number;
}

/** One /group/send of `list`, timed to its answer and to the last message submitted. */
async function timedGroupSend(
  server: ServerProcess,
  reader: StoreReader,
  key: SendingKey,
  list: readonly string[],
): Promise<SendTiming> {
  const body = groupSendBody(key.apiKey, list);
  const idleMb = residentMb(server.pid);
  const rss = watchPeakRss(server.pid, 50);
  const started = Date.now();
  const answer = await postJson(`${server.url}/group/send`, body);
  const sendId = Number(answer.json.rapor_id);
  if (answer.status !== 200 || answer.json.result !== true) {
    rss.stop();
    throw new Error(`/group/send answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  }
  const submittedAt = await pollUntil(
    () => (reader.submitted(sendId) >= list.length ? Date.now() : null),
    100,
    600_000,
  );
  const peakMb = rss.stop();
  return {
    responseMs: answer.ms,
    submittedSeconds: submittedAt === null ? null : (submittedAt - started) / 1000,
    idleMb,
    peakMb,
    sendId,
  };
}

async function sendsAndMemory(options: BenchOptions, figures: Figure[], faults: string[]): Promise<void> {
  const store = await sqliteStore();
  try {
    const key = await provisionSender(store, 100_000_000);
    const server = await startHaberci(store, 0, ['--sim-delay-ms', '300']);
    const reader = new StoreReader(store.dataDir ?? '');
    try {
      progress('warm-up: one /group/send of 1,000 numbers, dispatched');
      await timedGroupSend(server, reader, key, numbers(9_000_000, 1000));
      const timings: SendTiming[] = [];
      for (let i = 0; i < sends; i++) {
        await pollUntil(
          () => (reader.final() === Object.values(reader.statesOf()).reduce((a, b) => a + b, 0) ? true : null),
          200,
          120_000,
        );
        await settle(options.quietWaitSeconds);
        progress(`send ${i + 1} of ${sends}: ${recipients} numbers`);
        const t = await timedGroupSend(server, reader, key, numbers(i * 100_000));
        timings.push(t);
        progress(
          `  answered in ${t.responseMs.toFixed(0)} ms, all submitted after ${t.submittedSeconds?.toFixed(1) ?? '-'} s, RSS ${t.idleMb?.toFixed(0) ?? '-'} -> peak ${t.peakMb?.toFixed(0) ?? '-'} MB`,
        );
        if (t.submittedSeconds === null) faults.push(`${bench}: send ${i + 1} was not fully submitted in time`);
      }
      const responses = timings.map((t) => t.responseMs);
      const above = timings.map((t) => (t.idleMb === null || t.peakMb === null ? Number.NaN : t.peakMb - t.idleMb));
      const submitted = timings.map((t) => t.submittedSeconds ?? Number.NaN);
      const list = (xs: readonly number[], digits: number): string => xs.map((x) => x.toFixed(digits)).join(', ');
      figures.push(
        judged(
          figure(
            bench,
            'haberci sqlite',
            '/group/send 50,000: response, median of 5',
            median(responses),
            'ms',
            `each: ${list(responses, 0)} ms`,
          ),
          '<= 300 ms',
          (v) => v <= 300,
        ),
        figure(
          bench,
          'haberci sqlite',
          '50,000 submitted to the simulator, median of 5',
          median(submitted),
          's',
          `from the request; each: ${list(submitted, 1)} s (= ${Math.round(recipients / median(submitted))} msg/s)`,
        ),
        judged(
          figure(
            bench,
            'haberci sqlite',
            'peak RSS above idle during a send, worst of 5',
            Math.max(...above),
            'MB',
            `each: ${list(above, 0)} MB; idle before each: ${list(
              timings.map((t) => t.idleMb ?? Number.NaN),
              0,
            )} MB`,
          ),
          '<= 150 MB',
          (v) => v <= 150,
        ),
        // RSS before a send drifts up over the sends (the heap is not returned at once): the
        // highest peak against the fresh server's idle shows the drift too.
        figure(
          bench,
          'haberci sqlite',
          'highest peak RSS of 5 sends above the first idle',
          Math.max(...timings.map((t) => t.peakMb ?? Number.NaN)) - (timings[0]?.idleMb ?? Number.NaN),
          'MB',
          `peaks: ${list(
            timings.map((t) => t.peakMb ?? Number.NaN),
            0,
          )} MB`,
        ),
      );

      await interference(options, server, reader, key, figures, faults);
    } finally {
      reader.close();
      await server.stop();
    }
  } finally {
    await store.dispose();
  }
}

/** (d): the same light /sms/send load alone, then while a 50,000-number send dispatches. */
async function interference(
  options: BenchOptions,
  server: ServerProcess,
  reader: StoreReader,
  key: SendingKey,
  figures: Figure[],
  faults: string[],
): Promise<void> {
  const load = { connections: 5, seconds: 10, rate: 200 };
  const body = smsSendBody(key.apiKey);
  await pollUntil(
    () => (reader.final() === Object.values(reader.statesOf()).reduce((a, b) => a + b, 0) ? true : null),
    200,
    120_000,
  );
  await settle(options.quietWaitSeconds);
  progress('single /sms/send, 5 connections, 200 req/s, 10 s, nothing else running');
  const alone = await loadSmsSend(server, body, load);
  await pollUntil(
    () => (reader.final() === Object.values(reader.statesOf()).reduce((a, b) => a + b, 0) ? true : null),
    200,
    120_000,
  );
  await settle(options.quietWaitSeconds);
  progress('the same while a 50,000-number /group/send dispatches');
  const answer = await postJson(`${server.url}/group/send`, groupSendBody(key.apiKey, numbers(700_000)));
  const sendId = Number(answer.json.rapor_id);
  const during = await loadSmsSend(server, body, load);
  const submittedByEnd = reader.submitted(sendId);
  for (const [name, r] of [
    ['alone', alone],
    ['during a 50,000 send', during],
  ] as const) {
    figures.push(
      figure(
        bench,
        `haberci sqlite, /sms/send ${name}`,
        'p50 / p99 latency',
        r.latencyP50Ms,
        'ms',
        `p99 ${r.latencyP99Ms} ms; ${r.smsIds.length} accepted at ${r.requestsPerSecond.toFixed(0)} req/s; non-2xx ${r.non2xx}, errors ${r.errors}`,
      ),
    );
    figures.push(figure(bench, `haberci sqlite, /sms/send ${name}`, 'p99 latency', r.latencyP99Ms, 'ms', ''));
    if (r.non2xx > 0 || r.errors > 0) faults.push(`${bench} ${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  figures.push(
    figure(
      bench,
      'haberci sqlite, during the send',
      'campaign messages submitted by the end of the 10 s',
      submittedByEnd,
      'messages',
      `of ${recipients}; the send answered in ${answer.ms.toFixed(0)} ms before the load started`,
    ),
  );
}

/** (c): a real 50,000 send in a store of 1,000,000 messages; its last page, 200 times. */
async function reportPage(options: BenchOptions, figures: Figure[], faults: string[]): Promise<void> {
  const store: BenchStore = await sqliteStore();
  try {
    const dataDir = store.dataDir ?? '';
    const key = await provisionSender(store, 100_000_000);
    progress(`filling the store: ${filledCampaigns} delivered campaigns of ${recipients}`);
    const fillStarted = Date.now();
    fillDeliveredCampaigns(
      dataDir,
      { accountId: key.accountId, keyId: keyIdOf(dataDir, key.accountId) },
      filledCampaigns,
      recipients,
      Date.now(),
    );
    progress(`  filled in ${((Date.now() - fillStarted) / 1000).toFixed(1)} s`);
    const server = await startHaberci(store, 0, ['--sim-delay-ms', '300']);
    const reader = new StoreReader(dataDir);
    try {
      progress('the real /group/send of 50,000, until every message is delivered');
      const answer = await postJson(`${server.url}/group/send`, groupSendBody(key.apiKey, numbers(0)));
      const sendId = Number(answer.json.rapor_id);
      await pollUntil(() => (reader.final(sendId) >= recipients ? true : null), 200, 600_000);
      const total = Object.values(reader.statesOf()).reduce((a, b) => a + b, 0);
      await settle(options.quietWaitSeconds);
      const body = JSON.stringify({ api_key: key.apiKey, raporid: sendId, page: 100 });
      const url = `${server.url}/reports/detailed`;
      for (let i = 0; i < 10; i++) await postJson(url, body);
      const times: number[] = [];
      let rows = -1;
      for (let i = 0; i < reportRequests; i++) {
        const r = await postJson(url, body);
        times.push(r.ms);
        const data = r.json.data;
        rows = Array.isArray(data) ? data.length : -1;
        if (r.status !== 200 || rows !== 500) {
          faults.push(`${bench}: /reports/detailed page 100 answered ${r.status} with ${rows} rows`);
          break;
        }
      }
      figures.push(
        judged(
          figure(
            bench,
            'haberci sqlite, 1,000,000 messages',
            '/reports/detailed page 100 of 50,000, median',
            median(times),
            'ms',
            `p99 ${percentile(times, 99).toFixed(1)} ms over ${times.length} requests one after another; ${rows} rows a page; store holds ${total} messages`,
          ),
          '<= 20 ms',
          (v) => v <= 20,
        ),
      );
    } finally {
      reader.close();
      await server.stop();
    }
  } finally {
    await store.dispose();
  }
}

export async function benchBulk(options: BenchOptions): Promise<BenchOutput> {
  const figures: Figure[] = [];
  const faults: string[] = [];
  await sendsAndMemory(options, figures, faults);
  await reportPage(options, figures, faults);
  return { results: [], figures, faults };
}
