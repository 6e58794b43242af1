/**
 * Issue 23: POST /balance/ with answers serialized from their response schemas
 * (fast-json-stringify, through Fastify) against JSON.stringify, interleaved: two servers
 * in child processes, measured in turn, ON OFF OFF ON ON OFF..., a few seconds each.
 * Run: npm run build && node dist/bench/serializer.bench.js [rounds] [seconds]
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { openAppContainer } from '../src/main.js';
import { buildApp } from '../src/http/app.js';
import { defaultConnectionLimits } from '../src/config.js';
import { defaultKeySettings } from '../src/services/admin.js';
import { must } from '../src/cli/must.js';

type Mode = 'schemas' | 'stringify';

async function serve(mode: Mode): Promise<void> {
  const runtime = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
  const account = await must(
    runtime.admin.createAccount({
      name: 'Bench',
      balanceMain: 1000,
      balanceInternational: 0,
      perMinuteLimit: 0,
      otpBrand: 'Bench',
      ipAllow: [],
      globalSending: false,
    }),
  );
  const key = await must(runtime.admin.createKey(account.id, { ...defaultKeySettings }));
  const app = await buildApp({
    connections: defaultConnectionLimits,
    services: runtime.services,
    requestsPerSecond: 0,
    serializeFromSchemas: mode === 'schemas',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port, apiKey: key.api_key })}\n`);
}

async function start(mode: Mode): Promise<{ child: ChildProcess; port: number; apiKey: string }> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'serve', mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const ready = JSON.parse(line) as { port: number; apiKey: string };
    return { child, ...ready };
  }
  throw new Error(`${mode} server did not start`);
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const seconds = Number(process.argv[3] ?? 4);
  const servers = { schemas: await start('schemas'), stringify: await start('stringify') };
  const runs: Record<Mode, number[]> = { schemas: [], stringify: [] };
  const latency: Record<Mode, number[]> = { schemas: [], stringify: [] };
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order: Mode[] = round % 2 === 0 ? ['schemas', 'stringify'] : ['stringify', 'schemas'];
      for (const mode of order) {
        const s = servers[mode];
        const result = await autocannon({
          url: `http://127.0.0.1:${s.port}/balance/`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: s.apiKey }),
          connections: 10,
          duration: seconds,
        });
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        runs[mode].push(Math.round(result.requests.average));
        latency[mode].push(result.latency.average);
        process.stderr.write(
          `round ${round + 1} ${mode}: ${Math.round(result.requests.average)} req/s, mean latency ${result.latency.average.toFixed(2)} ms\n`,
        );
      }
    }
  } finally {
    servers.schemas.child.kill('SIGTERM');
    servers.stringify.child.kill('SIGTERM');
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  process.stdout.write(
    `${JSON.stringify({ rounds, seconds, runs, medians: { schemas: median(runs.schemas), stringify: median(runs.stringify) }, latencyMs: latency })}\n`,
  );
}

if (process.argv[2] === 'serve') await serve(process.argv[3] === 'stringify' ? 'stringify' : 'schemas');
else await main();
