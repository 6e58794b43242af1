import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { z } from 'zod';
import { freePort, repoRoot, startServer } from './server-process.js';
import type { ServerProcess } from './server-process.js';
import { cpuProfileDir } from './settings.js';

const run = promisify(execFile);
const bin = join(repoRoot, 'bin', 'haberci');

/** A fresh, empty store for one bench, and how `haberci` is pointed at it. */
export interface BenchStore {
  kind: 'sqlite' | 'postgres';
  /** `--data DIR` or `--database URL`. */
  flags: string[];
  /** The SQLite data folder (holding haberci.sqlite); null for PostgreSQL. */
  dataDir: string | null;
  dispose(): Promise<void>;
}

/** `admin` commands never create a store: a bench provisions before its server starts. */
async function initStore(flags: readonly string[]): Promise<void> {
  await run(bin, ['admin', 'store', 'init', ...flags], { cwd: repoRoot });
}

export async function sqliteStore(): Promise<BenchStore> {
  const dir = await mkdtemp(join(tmpdir(), 'haberci-bench-'));
  await initStore(['--data', dir]);
  return {
    kind: 'sqlite',
    flags: ['--data', dir],
    dataDir: dir,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A schema of its own in the given PostgreSQL database, selected through the URL's
 * `options=-c search_path=...` so the server needs no extra flag; dropped afterwards.
 */
export async function postgresStore(databaseUrl: string): Promise<BenchStore> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  await initStore(['--database', url.toString()]);
  return {
    kind: 'postgres',
    flags: ['--database', url.toString()],
    dataDir: null,
    dispose: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}

const created = z.object({ id: z.number().int() });
const createdKey = created.extend({ api_key: z.string() });

async function adminCommand<T>(store: BenchStore, args: string[], schema: z.ZodType<T>): Promise<T> {
  const { stdout } = await run(bin, ['admin', ...args, ...store.flags], { cwd: repoRoot });
  return schema.parse(JSON.parse(stdout));
}

/** Requests per Istanbul hour, day and month that a benchmark never reaches. */
const unreachable = '1000000000';

export interface BalanceKeys {
  /** A key with no request limits: authentication only, no write per request. */
  unlimited: string;
  /** A key with hourly, daily and monthly limits set: one counting write per request. */
  limited: string;
}

/** One account with 1000 SMS credit and an approved sender ID, and two keys on it. */
export async function provisionBalanceKeys(store: BenchStore): Promise<BalanceKeys> {
  const account = await adminCommand(store, ['account', 'create', '--name', 'Bench', '--balance', '1000'], created);
  const id = String(account.id);
  await adminCommand(store, ['sender-id', 'add', '--account', id, '--title', 'BENCH'], created);
  const unlimited = await adminCommand(store, ['key', 'create', '--account', id], createdKey);
  const limited = await adminCommand(
    store,
    [
      'key',
      'create',
      '--account',
      id,
      '--hourly-limit',
      unreachable,
      '--daily-limit',
      unreachable,
      '--monthly-limit',
      unreachable,
    ],
    createdKey,
  );
  return { unlimited: unlimited.api_key, limited: limited.api_key };
}

/** `haberci serve` on the store, quiet (warn), without the demo account. */
export async function startHaberci(
  store: BenchStore,
  requestsPerSecond: number,
  extra: readonly string[] = [],
): Promise<ServerProcess> {
  const port = await freePort();
  const args = [
    'serve',
    '--port',
    String(port),
    ...store.flags,
    '--log-level',
    'warn',
    '--demo',
    'false',
    '--requests-per-second',
    String(requestsPerSecond),
    ...extra,
  ];
  const name = `haberci (${store.kind}, --requests-per-second ${requestsPerSecond} ${extra.join(' ')})`;
  const profileDir = cpuProfileDir();
  if (profileDir !== '')
    return startServer(name, process.execPath, ['--cpu-prof', '--cpu-prof-dir', profileDir, bin, ...args], port);
  return startServer(name, bin, args, port);
}

/** A sending account: credit, the approved sender ID BENCH, and one key. */
export interface SendingKey {
  accountId: number;
  apiKey: string;
}

/** One account with `balance` SMS credit, sender ID BENCH, and a key (with a webhook when given, limited to `events` when given). */
export async function provisionSender(
  store: BenchStore,
  balance: number,
  webhook?: { url: string; secret: string; events?: string; batch?: number },
): Promise<SendingKey> {
  const account = await adminCommand(
    store,
    ['account', 'create', '--name', 'Bench', '--balance', String(balance)],
    created,
  );
  const id = String(account.id);
  await adminCommand(store, ['sender-id', 'add', '--account', id, '--title', 'BENCH'], created);
  const hook =
    webhook === undefined
      ? []
      : [
          '--webhook-url',
          webhook.url,
          '--webhook-secret',
          webhook.secret,
          ...(webhook.events === undefined ? [] : ['--webhook-events', webhook.events]),
          ...(webhook.batch === undefined ? [] : ['--webhook-batch', String(webhook.batch)]),
        ];
  const key = await adminCommand(store, ['key', 'create', '--account', id, ...hook], createdKey);
  return { accountId: account.id, apiKey: key.api_key };
}

/** The bare Fastify baseline (bench/bare-server.ts, compiled). */
export async function startBareServer(): Promise<ServerProcess> {
  const port = await freePort();
  return startServer(
    'bare Fastify route',
    process.execPath,
    [join(repoRoot, 'dist', 'bench', 'bare-server.js'), String(port)],
    port,
  );
}
