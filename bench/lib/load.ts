import autocannon from 'autocannon';
import type { Result } from 'autocannon';
import type { BenchOptions } from './bench.js';
import type { ServerProcess } from './server-process.js';

/** One POST with a JSON body and the exact body every answer must have. */
export interface JsonRequest {
  path: string;
  body: unknown;
  expectBody: string;
}

export interface Measurement {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  totalRequests: number;
  non2xx: number;
  errors: number;
  mismatches: number;
  serverCpuPercent: number | null;
  serverCpuMicrosPerRequest: number | null;
  loaderCpuPercent: number;
}

async function load(server: ServerProcess, request: JsonRequest, connections: number, seconds: number): Promise<Result> {
  return await autocannon({
    url: `${server.url}${request.path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request.body),
    expectBody: request.expectBody,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
}

/**
 * Warms the server up (JIT, caches, connection set-up), then measures a fixed duration
 * with keep-alive connections, one request in flight on each. The server's CPU is read
 * from /proc around the measured run only.
 */
export async function measure(server: ServerProcess, request: JsonRequest, options: BenchOptions): Promise<Measurement> {
  if (options.warmupSeconds > 0) await load(server, request, options.connections, options.warmupSeconds);
  const cpuBefore = server.cpuSeconds();
  const loaderBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await load(server, request, options.connections, options.durationSeconds);
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = server.cpuSeconds();
  const loader = process.cpuUsage(loaderBefore);

  const totalRequests = result.requests.total;
  const serverCpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    totalRequests,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    mismatches: result.mismatches,
    serverCpuPercent: serverCpu === null ? null : (100 * serverCpu) / wallSeconds,
    serverCpuMicrosPerRequest: serverCpu === null || totalRequests === 0 ? null : (serverCpu * 1e6) / totalRequests,
    loaderCpuPercent: (100 * (loader.user + loader.system)) / 1e6 / wallSeconds,
  };
}
