/**
 * Issue 35: the SMPP server for customers. N submit_sm (default 5,000) over 1 and over 4
 * binds (transmitters, 10 in flight per bind, as Kannel keeps), against the same number of
 * single-recipient /sms/send over 10 keep-alive requests in flight per bind, on the same
 * server and store (SQLite, built-in simulator). Prints accepted per second, p50/p99 of a
 * submit's answer, and the server's CPU per message. Standalone:
 *   npm run build && node dist/bench/smpp-server.bench.js [messages]
 * Figures: docs/benchmarks.md, "The SMPP server for customers".
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { smpp } from '../src/smpp/smpp-wire.js';
import type { Pdu } from '../src/smpp/smpp-wire.js';
import type { Session } from 'smpp';
import { sqliteStore, startHaberci } from './lib/haberci.js';
import type { BenchStore } from './lib/haberci.js';
import { freePort, repoRoot } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';

const run = promisify(execFile);
const bin = join(repoRoot, 'bin/haberci');
const inFlightPerBind = 10;

async function adminJson(store: BenchStore, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(bin, ['admin', ...args, ...store.flags], { cwd: repoRoot });
  return JSON.parse(stdout) as Record<string, unknown>;
}

interface Result {
  path: string;
  binds: number;
  messages: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuMsPerMessage: number | null;
  refused: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** The SMPP port opens just after the HTTP port the bench library waits for: tries again for 10 s. */
async function connectWhenOpen(port: number): Promise<Session> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const session = smpp.connect({ host: '127.0.0.1', port });
    const error = await new Promise<Error | null>((resolve) => {
      session.once('connect', () => resolve(null));
      session.once('error', (e: Error) => resolve(e));
    });
    if (error === null) return session;
    if (Date.now() > deadline) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function bindAll(port: number, binds: number): Promise<Session[]> {
  const sessions: Session[] = [];
  for (let i = 0; i < binds; i++) {
    const session = await connectWhenOpen(port);
    const resp = await new Promise<Pdu>((resolve) =>
      session.send(new smpp.PDU('bind_transmitter', { system_id: 'bench', password: 'bench' }), resolve),
    );
    if (resp.command_status !== 0) throw new Error(`bind refused: ${resp.command_status}`);
    sessions.push(session);
  }
  return sessions;
}

/** `total` operations, `concurrency` at a time; each resolves with whether it was accepted. */
async function drive(
  total: number,
  concurrency: number,
  one: (i: number, lane: number) => Promise<boolean>,
): Promise<{ latencies: number[]; refused: number; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  let refused = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (next < total) {
        const i = next++;
        const t = process.hrtime.bigint();
        if (!(await one(i, lane))) refused++;
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  return { latencies, refused, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

function result(
  path: string,
  binds: number,
  messages: number,
  run: { latencies: number[]; refused: number; seconds: number },
  cpu: number | null,
): Result {
  const sorted = [...run.latencies].sort((a, b) => a - b);
  return {
    path,
    binds,
    messages,
    perSecond: Math.round((messages - run.refused) / run.seconds),
    p50: Number(percentile(sorted, 0.5).toFixed(1)),
    p99: Number(percentile(sorted, 0.99).toFixed(1)),
    cpuMsPerMessage: cpu === null ? null : Number(((cpu * 1000) / messages).toFixed(3)),
    refused: run.refused,
  };
}

async function measure(
  server: ServerProcess,
  smppPort: number,
  apiKey: string,
  binds: number,
  n: number,
): Promise<Result[]> {
  const sessions = await bindAll(smppPort, binds);
  const lanes = binds * inFlightPerBind;
  let cpu0 = server.cpuSeconds();
  const submits = await drive(n, lanes, (i, lane) => {
    const session = sessions[lane % binds] as Session;
    return new Promise<boolean>((resolve) =>
      session.send(
        new smpp.PDU('submit_sm', {
          source_addr: 'BENCH',
          destination_addr: `9053212${String(i % 100000).padStart(5, '0')}`,
          registered_delivery: 0,
          short_message: Buffer.from('bench message', 'latin1'),
        }),
        (resp: Pdu) => resolve(resp.command_status === 0),
      ),
    );
  });
  let cpu1 = server.cpuSeconds();
  const out = [result('submit_sm', binds, n, submits, cpu0 === null || cpu1 === null ? null : cpu1 - cpu0)];
  // Long texts in three parts (UDH, 8-bit reference), each lane sending its message's parts
  // one after the other: a message is accepted when its last part is.
  const long = 'bench message of three parts '.repeat(14).slice(0, 3 * 153);
  const partsOf = (i: number): Buffer[] =>
    [0, 1, 2].map((k) =>
      Buffer.concat([
        Buffer.from([5, 0x00, 0x03, i & 0xff, 3, k + 1]),
        Buffer.from(long.slice(k * 153, (k + 1) * 153), 'latin1'),
      ]),
    );
  const longN = Math.ceil(n / 3);
  cpu0 = server.cpuSeconds();
  const concatenated = await drive(longN, lanes, async (i, lane) => {
    const session = sessions[lane % binds] as Session;
    let ok = true;
    for (const part of partsOf(i))
      ok =
        (await new Promise<boolean>((resolve) =>
          session.send(
            new smpp.PDU('submit_sm', {
              source_addr: 'BENCH',
              destination_addr: `9053214${String(i % 100000).padStart(5, '0')}`,
              esm_class: 0x40,
              registered_delivery: 0,
              short_message: part,
            }),
            (resp: Pdu) => resolve(resp.command_status === 0),
          ),
        )) && ok;
    return ok;
  });
  cpu1 = server.cpuSeconds();
  out.push(
    result('submit_sm, 3 parts', binds, longN, concatenated, cpu0 === null || cpu1 === null ? null : cpu1 - cpu0),
  );
  for (const s of sessions) s.destroy();
  cpu0 = server.cpuSeconds();
  const sends = await drive(n, lanes, async (i) => {
    const response = await fetch(`${server.url}/sms/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: apiKey,
        sentto: `9053213${String(i % 100000).padStart(5, '0')}`,
        title: 'BENCH',
        text: 'bench message',
      }),
    });
    await response.arrayBuffer();
    return response.status === 200;
  });
  cpu1 = server.cpuSeconds();
  out.push(result('/sms/send', binds, n, sends, cpu0 === null || cpu1 === null ? null : cpu1 - cpu0));
  cpu0 = server.cpuSeconds();
  const longSends = await drive(longN, lanes, async (i) => {
    const response = await fetch(`${server.url}/sms/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: apiKey,
        sentto: `9053215${String(i % 100000).padStart(5, '0')}`,
        title: 'BENCH',
        text: long,
      }),
    });
    await response.arrayBuffer();
    return response.status === 200;
  });
  cpu1 = server.cpuSeconds();
  out.push(result('/sms/send, 3 parts', binds, longN, longSends, cpu0 === null || cpu1 === null ? null : cpu1 - cpu0));
  return out;
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 5000);
  const results: Result[] = [];
  for (const binds of [1, 4]) {
    const store = await sqliteStore();
    try {
      const account = await adminJson(store, ['account', 'create', '--name', 'Bench', '--balance', String(6 * n)]);
      await adminJson(store, ['sender-id', 'add', '--account', String(account.id), '--title', 'BENCH']);
      const key = await adminJson(store, ['key', 'create', '--account', String(account.id)]);
      await adminJson(store, [
        'smpp-user',
        'create',
        '--key',
        String(key.id),
        '--system-id',
        'bench',
        '--password',
        'bench',
        '--max-binds',
        '8',
        '--max-submits-per-second',
        '0',
      ]);
      const smppPort = await freePort();
      const server = await startHaberci(store, 0, ['--smpp-server-port', String(smppPort), '--warm-up', '0']);
      try {
        results.push(...(await measure(server, smppPort, String(key.api_key), binds, n)));
      } finally {
        await server.stop();
      }
    } finally {
      await store.dispose();
    }
  }
  process.stdout.write(
    '| path | binds | in flight | messages | accepted/s | p50 ms | p99 ms | server CPU ms/message | refused |\n',
  );
  process.stdout.write('|---|---|---|---|---|---|---|---|---|\n');
  for (const r of results)
    process.stdout.write(
      `| ${r.path} | ${r.binds} | ${r.binds * inFlightPerBind} | ${r.messages} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${r.cpuMsPerMessage ?? 'n/a'} | ${r.refused} |\n`,
    );
}

await main();
