/**
 * `npm run bench [-- --only NAME] [--duration S] [--warmup S] [--connections N] [--quiet-wait S]`: runs the
 * benchmarks, prints one Markdown table, and writes the raw results of each bench to
 * bench/results/NAME-DATE.json (git-ignored). Load goes to 127.0.0.1 only, for a fixed time.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchBalance } from './balance.bench.js';
import type { Bench, BenchOptions, BenchResult } from './lib/bench.js';
import { defaultBenchOptions } from './lib/bench.js';
import { machineInfo } from './lib/machine.js';
import { disturbed, faults, markdownTable } from './lib/report.js';
import { repoRoot } from './lib/server-process.js';

/** Every bench `npm run bench` knows; a new one registers here. */
const benches: readonly Bench[] = [
  { name: 'balance', description: 'POST /balance/ against a bare Fastify route (issue 2)', run: benchBalance },
];

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function positive(raw: string | undefined, fallback: number, flag: string): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 600) fail(`--${flag} must be a whole number from 0 to 600, got "${raw}"`);
  return n;
}

function parseCommandLine(): { selected: readonly Bench[]; options: BenchOptions } {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'quiet-wait': { type: 'string' },
    },
  });
  const selected = values.only === undefined ? benches : benches.filter((b) => b.name === values.only);
  if (selected.length === 0) fail(`no bench named "${values.only}"; known: ${benches.map((b) => b.name).join(', ')}`);
  const options: BenchOptions = {
    durationSeconds: Math.max(1, positive(values.duration, defaultBenchOptions.durationSeconds, 'duration')),
    warmupSeconds: positive(values.warmup, defaultBenchOptions.warmupSeconds, 'warmup'),
    connections: Math.max(1, positive(values.connections, defaultBenchOptions.connections, 'connections')),
    quietWaitSeconds: positive(values['quiet-wait'], defaultBenchOptions.quietWaitSeconds, 'quiet-wait'),
  };
  return { selected, options };
}

async function main(): Promise<void> {
  const { selected, options } = parseCommandLine();
  const date = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(repoRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const all: BenchResult[] = [];
  for (const bench of selected) {
    process.stderr.write(`bench ${bench.name}: ${bench.description}\n`);
    const results = await bench.run(options);
    all.push(...results);
    const file = join(resultsDir, `${bench.name}-${date}.json`);
    await writeFile(file, `${JSON.stringify({ bench: bench.name, date, machine: machineInfo(), options, results }, null, 2)}\n`);
    process.stderr.write(`bench ${bench.name}: raw results in ${file}\n`);
  }
  const m = machineInfo();
  process.stdout.write(`\n${m.cores} cores, ${m.cpu}, Node ${m.node}; ${options.connections} connections, ${options.warmupSeconds} s warm-up, ${options.durationSeconds} s measured per case\n\n`);
  process.stdout.write(`${markdownTable(all)}\n`);
  const bad = faults(all);
  if (bad.length > 0) {
    process.stderr.write(`\nbench: these figures are not valid:\n${bad.map((b) => `  ${b}`).join('\n')}\n`);
    process.exitCode = 1;
  }
  const noisy = disturbed(all);
  if (noisy.length > 0) process.stderr.write(`\nbench: other work on the machine lowered these figures; run again when it is quiet:\n${noisy.map((b) => `  ${b}`).join('\n')}\n`);
}

await main();
