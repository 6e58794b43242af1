import type { BenchResult, Figure } from './bench.js';

const fixed = (n: number | null, digits: number): string => (n === null ? '-' : n.toFixed(digits));
const whole = (n: number): string => Math.round(n).toLocaleString('en-US');

function target(r: BenchResult): string {
  if (r.targetRatio === null || r.targetMet === null) return '';
  return `${r.targetMet ? 'met' : 'NOT met'} (>= ${fixed(r.targetRatio, 2)})`;
}

/** The results as one Markdown table, in the order measured. */
export function markdownTable(results: readonly BenchResult[]): string {
  const head = [
    'bench',
    'store',
    'case',
    'req/s (mean)',
    'vs baseline',
    'target',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'errors',
    'body mismatches',
    'server CPU %',
    'server CPU µs/req',
    'loader CPU %',
    'PostgreSQL CPU %',
    'other CPU %',
  ];
  const rows = results.map((r) => [
    r.bench,
    r.store,
    r.scenario,
    whole(r.requestsPerSecond),
    fixed(r.ratioToBaseline, 2),
    target(r),
    fixed(r.latencyP50Ms, 0),
    fixed(r.latencyP99Ms, 0),
    String(r.non2xx),
    String(r.errors),
    String(r.mismatches),
    fixed(r.serverCpuPercent, 0),
    fixed(r.serverCpuMicrosPerRequest, 1),
    fixed(r.loaderCpuPercent, 0),
    r.store === 'postgres' ? fixed(r.databaseCpuPercent, 0) : '-',
    fixed(r.otherCpuPercent, 0),
  ]);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Faults that make a figure meaningless: a non-2xx answer, an error or a wrong body. */
export function faults(results: readonly BenchResult[]): string[] {
  return results
    .filter((r) => r.non2xx > 0 || r.errors > 0 || r.mismatches > 0)
    .map(
      (r) =>
        `${r.bench} ${r.store} ${r.scenario}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.mismatches} body mismatches`,
    );
}

/** Above this (100 = one core), other work on the machine took enough CPU to lower a figure. */
export const disturbedAbovePercent = 10;

/** Cases measured while other work used the machine's CPU. */
export function disturbed(results: readonly BenchResult[]): string[] {
  return results
    .filter((r) => r.otherCpuPercent !== null && r.otherCpuPercent > disturbedAbovePercent)
    .map((r) => `${r.bench} ${r.store} ${r.scenario}: other processes used ${fixed(r.otherCpuPercent, 0)}% CPU`);
}

function figureValue(f: Figure): string {
  if (f.value === null) return '-';
  const digits = Math.abs(f.value) >= 100 || Number.isInteger(f.value) ? 0 : Math.abs(f.value) >= 10 ? 1 : 2;
  return f.value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The figures as one Markdown table, in the order measured. */
export function figuresTable(figures: readonly Figure[]): string {
  const head = ['bench', 'case', 'measure', 'value', 'unit', 'target', 'met', 'notes'];
  const rows = figures.map((f) => [
    f.bench,
    f.scenario,
    f.measure,
    figureValue(f),
    f.unit,
    f.target ?? '',
    f.targetMet === null ? '' : f.targetMet ? 'met' : '**NOT met**',
    f.notes,
  ]);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
