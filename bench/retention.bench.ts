/**
 * Issue 24, retention: single-recipient /sms/send (N requests over C connections, as the
 * sms-send bench) on a SQLite store that holds a day's worth of old delivered messages
 * (24 hourly campaigns, seeded straight into the store, 40 days old), with retention off,
 * and with `--retention-days 30` sweeping them away at its defaults (300 rows a transaction,
 * 100 ms pause) while the load runs. Figures: accept rate, p50 / p99, old rows removed
 * during the load, and the time the sweep takes to remove them all. Then, as a provider's
 * busy hour looks, a steady load at a fixed rate (`steadyRate` a second, in runs of 10 s)
 * for as long as the sweep takes at that load: the p99 of each run, beside the same runs
 * with retention off.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { BenchOptions, BenchOutput, Figure } from './lib/bench.js';
import { figure } from './lib/bench.js';
import { provisionSender, sqliteStore, startHaberci } from './lib/haberci.js';
import { smsSendBody } from './lib/haberci-load.js';
import { runHey } from './lib/hey.js';
import { settle } from './lib/machine.js';
import { pollUntil } from './lib/processes.js';
import { fillDeliveredCampaigns, keyIdOf } from './lib/store-filler.js';

const bench = 'retention';
const dayMs = 86_400_000;
const campaigns = 24;
const perCampaign = 10_000;
/** HABERCI_BENCH_RETENTION_PAUSE_MS: the sweep's pause between batches (the server's default, 100 ms, when unset). */
const pauseMs = process.env.HABERCI_BENCH_RETENTION_PAUSE_MS ?? '100';
/** The steady phase: requests a second, and runs of 10 s each (the sweep of the seeded day lasts longer). */
const steadyRate = 2_000;
const steadyRuns = 6;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function progress(text: string): void {
  process.stderr.write(`[${bench}] ${text}\n`);
}

async function runCase(options: BenchOptions, retention: boolean): Promise<{ figures: Figure[]; faults: string[] }> {
  const store = await sqliteStore();
  const dir = store.dataDir ?? '';
  try {
    const key = await provisionSender(store, 10 * options.messages + 10_000);
    const oldUntil = Date.now() - 40 * dayMs;
    progress(`seeding ${campaigns * perCampaign} delivered messages 40 days old`);
    fillDeliveredCampaigns(
      dir,
      { accountId: key.accountId, keyId: keyIdOf(dir, key.accountId) },
      campaigns,
      perCampaign,
      oldUntil,
    );
    // The sends' rollup rows, as the store's writes would have kept them (retention reads
    // them to tell a finished send).
    const writer = new Database(join(dir, 'haberci.sqlite'));
    writer
      .prepare(
        'insert into send_counts (send_id, messages, sms, delivered, failed) select send_id, count(*), sum(sms_count), count(*), 0 from messages where created_at <= ? group by send_id',
      )
      .run(oldUntil);
    writer.close();
    const reader = new Database(join(dir, 'haberci.sqlite'), { readonly: true });
    const oldLeft = (): number =>
      (reader.prepare('select count(*) as n from messages where created_at <= ?').get(oldUntil) as { n: number }).n;
    const extra = retention
      ? [
          '--sim-delay-ms',
          '300',
          '--retention-days',
          '30',
          '--retention-every-ms',
          '1000',
          '--retention-pause-ms',
          pauseMs,
        ]
      : ['--sim-delay-ms', '300'];
    const server = await startHaberci(store, 0, extra);
    const label = retention
      ? `retention sweeping a day of old messages (pause ${pauseMs} ms)`
      : 'retention off (same old messages kept)';
    try {
      const url = `${server.url}/sms/send`;
      const body = smsSendBody(key.apiKey);
      await runHey({ url, requests: 500, connections: 10, body });
      await settle(Math.min(options.quietWaitSeconds, 10));
      if (retention) await pollUntil(() => (oldLeft() < campaigns * perCampaign ? true : null), 100, 60_000);
      const before = oldLeft();
      progress(
        `${label}: hey ${options.messages} requests over ${options.connections} connections (${before} old rows left)`,
      );
      const hey = await runHey({ url, requests: options.messages, connections: options.connections, body });
      const seconds = (Date.now() - hey.startedAt) / 1000;
      const removed = before - oldLeft();
      const figures = [
        figure(
          bench,
          label,
          'HTTP accept (hey)',
          hey.requestsPerSecond,
          'req/s',
          `statuses ${JSON.stringify(hey.statuses)}`,
        ),
        figure(bench, label, 'HTTP p50 / p99', hey.latencyP50Ms, 'ms', `p99 ${hey.latencyP99Ms.toFixed(1)} ms`),
        figure(bench, label, 'HTTP p99', hey.latencyP99Ms, 'ms'),
      ];
      const faults =
        hey.non2xx > 0 || hey.errors > 0 ? [`${bench} ${label}: ${hey.non2xx} non-2xx, ${hey.errors} errors`] : [];
      if (retention)
        figures.push(
          figure(
            bench,
            label,
            'old rows removed during the load',
            removed / seconds,
            'rows/s',
            `${removed} of ${before} in ${seconds.toFixed(1)} s`,
          ),
        );
      // The steady phase: a fixed rate, below saturation, for a minute of the sweep.
      const steadyBefore = oldLeft();
      const started = Date.now();
      const p99s: number[] = [];
      for (let run = 0; run < steadyRuns; run++) {
        const steady = await runHey({
          url,
          requests: steadyRate * 10,
          connections: options.connections,
          body,
          rate: steadyRate,
        });
        p99s.push(steady.latencyP99Ms);
        if (steady.non2xx > 0 || steady.errors > 0)
          faults.push(`${bench} ${label}, steady run ${run + 1}: ${steady.non2xx} non-2xx, ${steady.errors} errors`);
      }
      const steadySeconds = (Date.now() - started) / 1000;
      const steadyLeft = oldLeft();
      figures.push(
        figure(
          bench,
          label,
          `steady ${steadyRate} req/s: p99, median of ${steadyRuns} runs of 10 s`,
          median(p99s),
          'ms',
          `each run: ${p99s.map((p) => p.toFixed(1)).join(', ')} ms`,
        ),
        figure(bench, label, `steady ${steadyRate} req/s: p99, worst run`, Math.max(...p99s), 'ms'),
      );
      if (retention) {
        figures.push(
          figure(
            bench,
            label,
            'old rows removed during the steady load',
            (steadyBefore - steadyLeft) / steadySeconds,
            'rows/s',
            `${steadyBefore - steadyLeft} of ${steadyBefore} in ${steadySeconds.toFixed(0)} s; ${steadyLeft} left, so the sweep ran throughout: ${steadyLeft > 0}`,
          ),
        );
        const sweepStart = Date.now();
        const done = await pollUntil(() => (oldLeft() === 0 ? Date.now() : null), 500, 600_000);
        figures.push(
          figure(
            bench,
            label,
            'the rest removed, after the load',
            done === null ? null : (done - sweepStart) / 1000,
            's',
            `${oldLeft()} old rows left at the end`,
          ),
        );
      }
      reader.close();
      return { figures, faults };
    } finally {
      if (reader.open) reader.close();
      await server.stop();
    }
  } finally {
    await store.dispose();
  }
}

/** HABERCI_BENCH_RETENTION_FIRST=on measures the sweeping case first (the machine is shared: order matters). */
export async function benchRetention(options: BenchOptions): Promise<BenchOutput> {
  const onFirst = process.env.HABERCI_BENCH_RETENTION_FIRST === 'on';
  const early = await runCase(options, onFirst);
  const late = await runCase(options, !onFirst);
  const [off, on] = onFirst ? [late, early] : [early, late];
  return { results: [], figures: [...off.figures, ...on.figures], faults: [...off.faults, ...on.faults] };
}
