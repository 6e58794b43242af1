/**
 * Issue 45: a /group/send of 50,000 numbers with `short_links` 1 (a link of its own for each
 * recipient, made as its messages are written out) beside the same send without, on SQLite.
 * The two are interleaved, A/B then B/A, so the shared machine's drift falls on both alike;
 * each send is cancelled once answered, so no send's writing-out runs under the next one's
 * request. Judged: the median with links at most twice the median without.
 *
 * The links' cost moved to the writing-out, so that is measured too (not judged): a send
 * scheduled far ahead of each kind, written out here by the dispatcher's expander on the same
 * store with a clock past its time, 5,000 messages a chunk as `serve` does.
 */
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure, judged } from './lib/bench.js';
import { provisionSender, sqliteStore, startHaberci } from './lib/haberci.js';
import { post } from './carrier-fairness.bench.js';
import { openStore } from '../src/adapters/store/open-store.js';
import { sqliteFileIn } from '../src/adapters/store/store-location.js';
import { SendExpander } from '../src/jobs/send-expander.js';

const bench = 'short-links-send';
const recipients = 50_000;
const pairs = 5;
const text = 'Kampanya: https://shop.example.com/indirim?kod=45 son gün bugün';

function progress(line: string): void {
  process.stderr.write(`[${bench}] ${line}\n`);
}

function numbers(run: number): string[] {
  return Array.from(
    { length: recipients },
    (_, i) => `905${String(run).padStart(2, '0')}${String(i).padStart(7, '0')}`,
  );
}

async function oneSend(url: string, apiKey: string, run: number, links: boolean): Promise<number> {
  const body = { api_key: apiKey, title: 'BENCH', text, sentto: numbers(run), ...(links ? { short_links: 1 } : {}) };
  const started = performance.now();
  const sent = await post(`${url}/group/send`, body);
  const ms = performance.now() - started;
  if (sent.result_code !== 'TS-1024') throw new Error(`group send: ${JSON.stringify(sent).slice(0, 300)}`);
  const cancel = await post(`${url}/group/cancel`, { api_key: apiKey, rapor_id: sent.rapor_id });
  if (cancel.result_code !== 'TS-1064') throw new Error(`group cancel: ${JSON.stringify(cancel).slice(0, 300)}`);
  return ms;
}

/** Far ahead: the server's own dispatcher never finds these sends due. */
const scheduled = { scheduled_sms: 1, scheduled_date: '2099-01-01', scheduled_time: '10:00' };
const pastScheduled = Date.UTC(2099, 0, 1, 12);

/** Writes out a send scheduled far ahead with the expander `serve` runs; the milliseconds it took. */
async function writeOut(
  url: string,
  apiKey: string,
  run: number,
  links: boolean,
  expander: SendExpander,
): Promise<number> {
  const body = { api_key: apiKey, title: 'BENCH', text, sentto: numbers(run), ...scheduled };
  const sent = await post(`${url}/group/send`, { ...body, ...(links ? { short_links: 1 } : {}) });
  if (sent.result_code !== 'TS-1024') throw new Error(`group send: ${JSON.stringify(sent).slice(0, 300)}`);
  const started = performance.now();
  let written = 0;
  for (let n = await expander.expandNext(); n > 0; n = await expander.expandNext()) written += n;
  const ms = performance.now() - started;
  if (written !== recipients) throw new Error(`wrote out ${written} of ${recipients}`);
  return ms;
}

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

export async function benchShortLinksSend(_options: BenchOptions): Promise<BenchOutput> {
  const store = await sqliteStore();
  const figures: Figure[] = [];
  try {
    const key = await provisionSender(store, 100_000_000);
    // No start-up warm-up (a loaded machine outlasts the start's time limit): the uncounted pair below warms it.
    const server = await startHaberci(store, 0, ['--short-link-base', 'http://s.example/l', '--warm-up', '0']);
    try {
      // The writing-out of each kind, interleaved the same way; first, while no cancelled
      // send's rest is being settled (the expander does that before it writes out).
      const local = await openStore({ dialect: 'sqlite', file: sqliteFileIn(store.dataDir ?? '') });
      const plainOut: number[] = [];
      const linkedOut: number[] = [];
      try {
        const expander = new SendExpander(local.queue, { now: () => pastScheduled });
        let outRun = 50;
        await writeOut(server.url, key.apiKey, outRun++, false, expander);
        for (let pair = 0; pair < 3; pair++) {
          for (const links of pair % 2 === 0 ? [false, true] : [true, false]) {
            const ms = await writeOut(server.url, key.apiKey, outRun++, links, expander);
            (links ? linkedOut : plainOut).push(ms);
            progress(`writing out, pair ${pair + 1}: ${links ? 'with' : 'without'} short links ${ms.toFixed(0)} ms`);
          }
        }
      } finally {
        await local.close();
      }
      // One of each first, not counted: the first send of a process warms its caches.
      await oneSend(server.url, key.apiKey, 0, false);
      await oneSend(server.url, key.apiKey, 1, true);
      const plain: number[] = [];
      const linked: number[] = [];
      let run = 2;
      for (let pair = 0; pair < pairs; pair++) {
        const order = pair % 2 === 0 ? [false, true] : [true, false];
        for (const links of order) {
          const ms = await oneSend(server.url, key.apiKey, run++, links);
          (links ? linked : plain).push(ms);
          progress(`pair ${pair + 1}: ${links ? 'with' : 'without'} short links ${ms.toFixed(0)} ms`);
        }
      }
      const a = median(plain);
      const b = median(linked);
      const scenario = 'haberci sqlite, /group/send of 50,000 numbers, 5 interleaved pairs';
      figures.push(
        figure(
          bench,
          scenario,
          'without short_links: answer, median',
          a,
          'ms',
          plain.map((v) => v.toFixed(0)).join(', '),
        ),
        figure(
          bench,
          scenario,
          'with short_links: 1: answer, median',
          b,
          'ms',
          linked.map((v) => v.toFixed(0)).join(', '),
        ),
        judged(
          figure(bench, scenario, 'with / without (medians)', b / a, 'x', 'each pair alternates which goes first'),
          '<= 2x',
          (v) => v <= 2,
        ),
        figure(
          bench,
          scenario,
          'writing out 50,000 without short_links, median',
          median(plainOut),
          'ms',
          plainOut.map((v) => v.toFixed(0)).join(', '),
        ),
        figure(
          bench,
          scenario,
          'writing out 50,000 with short_links: 1 (links made then), median',
          median(linkedOut),
          'ms',
          linkedOut.map((v) => v.toFixed(0)).join(', '),
        ),
      );
    } finally {
      await server.stop();
    }
  } finally {
    await store.dispose();
  }
  return { results: [], figures, faults: [] };
}
