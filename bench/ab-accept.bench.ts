/**
 * Two builds side by side, for a change of the send path measured on a shared, noisy
 * machine: this checkout and another one (`--other DIR`: a worktree of another commit, built,
 * with its node_modules). Each runs its own `serve` on its own fresh SQLite store,
 * provisioned by its own `haberci admin`; the rounds alternate between them (A B, B A, ...),
 * so a disturbance of the machine falls on both alike, and each round pair gives one paired
 * difference. Two paths, as bench/gate.ts measures them:
 *   - `accept`: `--worker false`, server CPU of an accepted single-recipient `/sms/send`;
 *   - `end-to-end`: with the dispatcher and the simulator (20 ms receipts), server CPU of a
 *     message from accept to its final state (the deriver of the panel's rollups included).
 * Prints the lowest and median µs of each build and the median of the paired differences.
 * Run: npm run build && node dist/bench/ab-accept.bench.js --other /work/other-worktree [--rounds 15]
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import { smsSendBody } from './lib/haberci-load.js';
import { cpuSecondsOf, pollUntil } from './lib/processes.js';
import { freePort, repoRoot, startServer } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';
import { StoreReader } from './lib/store-reader.js';

const run = promisify(execFile);
const requestsPerRound = 1_500;
const messagesPerRound = 400;
const connections = 10;

function progress(text: string): void {
  process.stderr.write(`[ab-accept] ${text}\n`);
}

const cpuOf = (pid: number | undefined): number => cpuSecondsOf(pid);

async function post(server: ServerProcess, body: string, amount: number): Promise<void> {
  const result = await autocannon({
    url: `${server.url}/sms/send`,
    connections,
    amount,
    timeout: 10,
    requests: [{ method: 'POST', path: '/sms/send', headers: { 'content-type': 'application/json' }, body }],
  });
  if (result.errors + result.timeouts + result.non2xx > 0)
    throw new Error(`/sms/send: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
}

/** One build's servers: accept-only and end to end, each on a store of its own. */
interface Build {
  name: string;
  accept: ServerProcess;
  endToEnd: ServerProcess;
  acceptBody: string;
  endToEndBody: string;
  reader: StoreReader;
  dirs: string[];
}

async function startBuild(name: string, root: string): Promise<Build> {
  const bin = join(root, 'bin', 'haberci');
  const admin = async (args: string[]): Promise<Record<string, unknown>> =>
    JSON.parse((await run(bin, ['admin', ...args], { cwd: root })).stdout) as Record<string, unknown>;
  const store = async (): Promise<{ dir: string; body: string }> => {
    const dir = await mkdtemp(join(tmpdir(), 'haberci-ab-'));
    await run(bin, ['admin', 'store', 'init', '--data', dir], { cwd: root });
    const account = await admin(['account', 'create', '--name', 'AB', '--balance', '100000000', '--data', dir]);
    await admin(['sender-id', 'add', '--account', String(account.id), '--title', 'BENCH', '--data', dir]);
    const key = await admin(['key', 'create', '--account', String(account.id), '--data', dir]);
    return { dir, body: smsSendBody(String(key.api_key)) };
  };
  const serve = async (dir: string, extra: string[]): Promise<ServerProcess> => {
    const port = await freePort();
    return startServer(
      `${name} ${extra.join(' ')}`,
      bin,
      [
        'serve',
        '--port',
        String(port),
        '--data',
        dir,
        '--log-level',
        'warn',
        '--demo',
        'false',
        '--requests-per-second',
        '0',
        ...extra,
      ],
      port,
    );
  };
  const a = await store();
  const e = await store();
  return {
    name,
    accept: await serve(a.dir, ['--worker', 'false']),
    endToEnd: await serve(e.dir, ['--sim-delay-ms', '20']),
    acceptBody: a.body,
    endToEndBody: e.body,
    reader: new StoreReader(e.dir),
    dirs: [a.dir, e.dir],
  };
}

async function acceptRound(b: Build): Promise<number> {
  const before = cpuOf(b.accept.pid);
  await post(b.accept, b.acceptBody, requestsPerRound);
  return ((cpuOf(b.accept.pid) - before) * 1e6) / requestsPerRound;
}

async function endToEndRound(b: Build): Promise<number> {
  const finalBefore = b.reader.final();
  const before = cpuOf(b.endToEnd.pid);
  await post(b.endToEnd, b.endToEndBody, messagesPerRound);
  await pollUntil(() => (b.reader.final() >= finalBefore + messagesPerRound ? true : null), 20, 60_000);
  return ((cpuOf(b.endToEnd.pid) - before) * 1e6) / messagesPerRound;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((p, q) => p - q);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { other: { type: 'string' }, rounds: { type: 'string', default: '15' } } });
  const other = values.other ?? '';
  if (other === '' || !existsSync(join(other, 'dist')))
    throw new Error('--other DIR: a built checkout of another commit');
  const rounds = Number(values.rounds);
  const builds = [await startBuild('other', other), await startBuild('this', repoRoot)];
  try {
    progress('warming up');
    for (const b of builds) {
      await post(b.accept, b.acceptBody, 3000);
      await endToEndRound(b);
    }
    const paths = { accept: acceptRound, 'end-to-end': endToEndRound } as const;
    const lines: string[] = [];
    for (const [path, round] of Object.entries(paths)) {
      const samples: number[][] = [[], []];
      for (let r = 0; r < rounds; r += 1) {
        const order = r % 2 === 0 ? [0, 1] : [1, 0];
        for (const i of order) samples[i]?.push(await round(builds[i] as Build));
        progress(
          `${path} round ${r + 1}/${rounds}: other ${samples[0]?.at(-1)?.toFixed(1)}, this ${samples[1]?.at(-1)?.toFixed(1)} µs`,
        );
      }
      const [o = [], t = []] = samples;
      const diffs = t.map((x, i) => x - (o[i] ?? 0));
      lines.push(
        `| ${path} | ${Math.min(...o).toFixed(1)} / ${median(o).toFixed(1)} | ${Math.min(...t).toFixed(1)} / ${median(t).toFixed(1)} | ${median(diffs).toFixed(1)} |`,
      );
    }
    process.stdout.write(
      [
        `ab-accept: ${rounds} alternating rounds per path; server CPU µs (a request accepted; a message end to end)`,
        '',
        '| path | other: lowest / median | this: lowest / median | median of paired differences (this - other) |',
        '|---|---:|---:|---:|',
        ...lines,
        '',
      ].join('\n'),
    );
  } finally {
    for (const b of builds) {
      b.reader.close();
      await Promise.all([b.accept.stop(), b.endToEnd.stop()]);
      for (const d of b.dirs) await rm(d, { recursive: true, force: true });
    }
  }
}

void main();
