import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before } from 'node:test';
import { haberci as haberciInProcess } from './cli.js';

const run = promisify(execFile);
export const binPath = resolve('bin/haberci');

/**
 * The environment for child processes: without the test runner's NODE_TEST_CONTEXT (a
 * child node that inherits it behaves as a test file) and without HABERCI_* settings of
 * the developer's shell.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('HABERCI_') && k !== 'NODE_TEST_CONTEXT') out[k] = v;
  // No start-up warm-up (docs/decisions.md): it would add about four seconds to every server a test starts.
  return { ...out, HABERCI_WARM_UP: '0', ...extra };
}

/** A real `haberci serve` child process, started on an ephemeral port. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * How long `serve` may take to say it is ready: a few seconds on a quiet machine, but over
 * 15 s on a loaded one (seen with other work on both cores), where a shorter bound failed
 * suites that had nothing wrong. A server that exits stops the wait at once.
 */
export const serverReadyMs = 60_000;

export async function startServer(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = serverReadyMs,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const m = /haberci ready on (http:\/\/[^"\s]+)/.exec(out);
    if (m?.[1]) return { child, url: m[1], output: () => out, exited };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become ready:\n${out}`);
}

/**
 * Runs `haberci admin ...` in this process (src/cli/program.ts, the binary's command tree)
 * and parses its JSON answer; a failure throws with its stderr. For a suite's setup and
 * checks: starting a process per command cost a second or more each on a loaded machine.
 */
export async function admin(args: readonly string[]): Promise<Record<string, unknown>> {
  const run = await haberciInProcess(['admin', ...args]);
  if (run.code !== 0) throw new Error(`haberci admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** Runs `haberci admin ...` as its own process, where another process is the point, and parses its JSON answer. */
export async function adminProcess(args: readonly string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [binPath, 'admin', ...args], { env: childEnv() });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** What `provisionSender` made: the account's id (as the CLI takes it) and the key, shown once. */
export interface ProvisionedSender {
  accountId: string;
  keyId: string;
  apiKey: string;
}

/**
 * An account with `balance` SMS credit, the approved sender ID ACME and a key, made through
 * `haberci admin` against the store that `store` names (`--data DIR` or `--database URL`).
 * `keyArgs` go to `key create` (a webhook, say).
 */
export async function provisionSender(
  store: readonly string[],
  name: string,
  balance: number,
  keyArgs: readonly string[] = [],
): Promise<ProvisionedSender> {
  const account = await admin(['account', 'create', '--name', name, '--balance', String(balance), ...store]);
  const accountId = String(account.id);
  await admin(['sender-id', 'add', '--account', accountId, '--title', 'ACME', ...store]);
  const key = await admin(['key', 'create', '--account', accountId, ...keyArgs, ...store]);
  return { accountId, keyId: String(key.id), apiKey: String(key.api_key) };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * For one describe(): a `serve` on a fresh data folder with `args`, and an account with the
 * sender ID ACME and a key, made before its tests; the process killed and the folder removed
 * after them. Read `server` and `sender` inside the tests.
 */
export function serverForSuite(
  name: string,
  balance: number,
  args: readonly string[] = [],
  /** How long the server may take to be ready (a loaded machine starts it slowly). */
  timeoutMs = serverReadyMs,
): {
  readonly server: ServerProcess;
  readonly sender: ProvisionedSender;
  /** `--data DIR`, for admin commands against its store. */ readonly store: readonly string[];
} {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-suite-'));
  let live: { server: ServerProcess; sender: ProvisionedSender } | null = null;
  before(async () => {
    const server = await startServer(['--data', dir, '--demo', 'false', ...args], {}, timeoutMs);
    live = { server, sender: await provisionSender(['--data', dir], name, balance) };
  });
  after(async () => {
    if (live) {
      live.server.child.kill('SIGKILL');
      await live.server.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (): { server: ServerProcess; sender: ProvisionedSender } => {
    if (!live) throw new Error('the suite server is used outside its suite');
    return live;
  };
  return {
    get server() {
      return get().server;
    },
    get sender() {
      return get().sender;
    },
    store: ['--data', dir],
  };
}
