import autocannon from 'autocannon';
import type { Result } from 'autocannon';
import type { BenchOptions } from './bench.js';
import { busyPercent, cpuTotals, namedProcessesCpuSeconds, waitForQuiet } from './machine.js';
import type { ServerProcess } from './server-process.js';

/** One POST with a JSON body and the exact body every answer must have. */
export interface JsonRequest {
  path: string;
  body: unknown;
  expectBody: string;
}

/** The database server shares the machine; its CPU is part of the system under test. */
const databaseProcess = 'postgres';

/** The figures of one measured load. */
export interface Measurement {
  /** Mean of the per-second request counts. */
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  totalRequests: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers whose body was not the expected one. */
  mismatches: number;
  /** Server process CPU over the measured run, 100 = one core; null where /proc is missing. */
  serverCpuPercent: number | null;
  /** Server CPU time per answered request, microseconds. */
  serverCpuMicrosPerRequest: number | null;
  /** The load generator's own CPU, 100 = one core: near 100 means it, not the server, was the limit. */
  loaderCpuPercent: number;
  /** PostgreSQL processes' CPU, 100 = one core: the store's share of the machine. */
  databaseCpuPercent: number | null;
  /** CPU used by everything else during the measured run, 100 = one core; above a few percent the figure is disturbed. */
  otherCpuPercent: number | null;
}

async function load(
  server: ServerProcess,
  request: JsonRequest,
  connections: number,
  seconds: number,
): Promise<Result> {
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
 * Waits for a quiet machine, warms the server up (JIT, caches, connection set-up), then
 * measures a fixed duration with keep-alive connections, one request in flight on each.
 * CPU (server, load generator, whole machine) is read around the measured run only.
 */
export async function measure(
  server: ServerProcess,
  request: JsonRequest,
  options: BenchOptions,
): Promise<Measurement> {
  const waitStarted = Date.now();
  const busy = await waitForQuiet(options.quietWaitSeconds);
  const waited = Math.round((Date.now() - waitStarted) / 1000);
  if (waited > 2)
    process.stderr.write(
      `  waited ${waited} s for a quiet machine (last second: ${busy === null ? '?' : Math.round(busy)}% CPU busy)\n`,
    );
  if (options.warmupSeconds > 0) await load(server, request, options.connections, options.warmupSeconds);
  const machineBefore = cpuTotals();
  const databaseBefore = namedProcessesCpuSeconds(databaseProcess);
  const cpuBefore = server.cpuSeconds();
  const loaderBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await load(server, request, options.connections, options.durationSeconds);
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = server.cpuSeconds();
  const loader = process.cpuUsage(loaderBefore);
  const machine = busyPercent(machineBefore, cpuTotals());
  const databaseAfter = namedProcessesCpuSeconds(databaseProcess);

  const totalRequests = result.requests.total;
  const serverCpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
  const serverCpuPercent = serverCpu === null ? null : (100 * serverCpu) / wallSeconds;
  const loaderCpuPercent = (100 * (loader.user + loader.system)) / 1e6 / wallSeconds;
  const databaseCpuPercent =
    databaseBefore === null || databaseAfter === null
      ? null
      : (100 * Math.max(0, databaseAfter - databaseBefore)) / wallSeconds;
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    totalRequests,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    mismatches: result.mismatches,
    serverCpuPercent,
    serverCpuMicrosPerRequest: serverCpu === null || totalRequests === 0 ? null : (serverCpu * 1e6) / totalRequests,
    loaderCpuPercent,
    databaseCpuPercent,
    otherCpuPercent:
      machine === null || serverCpuPercent === null
        ? null
        : Math.max(0, machine - serverCpuPercent - loaderCpuPercent - (databaseCpuPercent ?? 0)),
  };
}
