import { runCommand } from './processes.js';

/**
 * `hey` (Go), the load generator Kannel's anchor uses: a fixed number of requests over
 * keep-alive connections, one in flight each. Driving haberci with it too means both
 * gateways are measured by the same client with the same N and C.
 */
export interface HeyFigures {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Answers that were not 2xx, and requests that got no answer. */
  non2xx: number;
  errors: number;
  /** CPU seconds hey used (user + system). */
  cpuSeconds: number;
  startedAt: number;
  output: string;
}

export interface HeyLoad {
  url: string;
  requests: number;
  connections: number;
  /** JSON body of a POST. */
  body: string;
  /** Requests per second over all connections (hey -q splits it per connection). */
  rate?: number;
}

export function parseHey(output: string, requests: number): Omit<HeyFigures, 'cpuSeconds' | 'startedAt' | 'output'> {
  const number = (pattern: RegExp): number => {
    const match = pattern.exec(output);
    return match?.[1] === undefined ? Number.NaN : Number(match[1]);
  };
  const statuses: Record<string, number> = {};
  for (const match of output.matchAll(/\[(\d{3})\]\s+(\d+) responses/g)) {
    const [, code = '', count = '0'] = match;
    statuses[code] = (statuses[code] ?? 0) + Number(count);
  }
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  const ok = Object.entries(statuses)
    .filter(([code]) => code.startsWith('2'))
    .reduce((a, [, n]) => a + n, 0);
  return {
    requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
    latencyP50Ms: number(/\s50% in ([\d.]+) secs/) * 1000,
    latencyP99Ms: number(/\s99% in ([\d.]+) secs/) * 1000,
    statuses,
    non2xx: answered - ok,
    errors: requests - answered,
  };
}

/** Runs hey (bounded by its count and a 300 s cap) through `time` for its CPU. */
export async function runHey(load: HeyLoad): Promise<HeyFigures> {
  const rate = load.rate === undefined ? [] : ['-q', (load.rate / load.connections).toFixed(2)];
  const args = [
    '-f',
    '%U %S',
    'hey',
    '-n',
    String(load.requests),
    '-c',
    String(load.connections),
    ...rate,
    '-t',
    '20',
    '-m',
    'POST',
    '-T',
    'application/json',
    '-d',
    load.body,
    load.url,
  ];
  const startedAt = Date.now();
  const { code, stdout, stderr } = await runCommand('/usr/bin/time', args, { timeoutMs: 300_000 });
  if (code !== 0) throw new Error(`hey exited with ${code}: ${stderr.slice(-2000)}`);
  // time(1) writes its line to stderr, after anything hey wrote there.
  const [user = 0, system = 0] = (stderr.trim().split('\n').pop() ?? '').split(' ').map(Number);
  return { ...parseHey(stdout, load.requests), cpuSeconds: user + system, startedAt, output: stdout };
}
