/** Reading a Prometheus text exposition in tests. */
import assert from 'node:assert/strict';
import { waitFor } from './wait-for.js';

/** The value of one sample line (`name{labels} value`), 0 when the series does not exist yet. */
export function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** Whether the exposition has a series of this name (any labels). */
export function hasSeries(text: string, name: string): boolean {
  return text.split('\n').some((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
}

/** Every metric name the exposition declares (its `# TYPE` lines), with the series names a histogram adds. */
export function metricNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const typed = /^# TYPE (\S+) (\S+)/.exec(line);
    if (!typed) continue;
    const [, name = '', type] = typed;
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

/** GET /metrics of an operations listener. */
export async function scrape(ops: string): Promise<string> {
  const response = await fetch(`${ops}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

/** Scrapes until `test` holds (or throws after `timeoutMs` with the last exposition's reason). */
export async function scrapeUntil(
  ops: string,
  what: string,
  test: (text: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  return waitFor(
    what,
    async () => {
      const text = await scrape(ops);
      return test(text) ? text : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** The operations listener's address, from a serve process's output. */
export function opsAddress(output: string): string {
  return /operations listener on (http:\/\/[^\s"]+)/.exec(output)?.[1] ?? '';
}
