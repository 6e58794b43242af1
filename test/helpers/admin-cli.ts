import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binPath, childEnv } from './server-process.js';
import { openAppContainer } from '../../src/main.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';

export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `haberci ...` as scripts do (from `cwd`, the repository root by default). */
export async function haberci(args: readonly string[], cwd = process.cwd()): Promise<BinRun> {
  const child = spawn(process.execPath, [binPath, ...args], {
    cwd,
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  // A bound on a hung command: a start alone took over 20 s on a machine loaded past 20.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** What an admin command that must succeed printed: one JSON object on stdout, nothing on stderr. */
export function answerOf(run: BinRun, args: readonly string[]): Record<string, unknown> {
  assert.equal(run.code, 0, `admin ${args.join(' ')}: ${run.stderr}`);
  assert.equal(run.stderr, '');
  assert.equal(run.stdout.trimEnd().split('\n').length, 1, run.stdout);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** What an admin command that must fail said: exit 1, nothing on stdout, one line on stderr (returned). */
export function refusalOf(run: BinRun, args: readonly string[]): string {
  assert.equal(run.code, 1, `admin ${args.join(' ')} should fail: ${run.stdout}`);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr: ${run.stderr}`);
  assert.notEqual(lines[0], '');
  return lines[0] ?? '';
}

/** `haberci admin ...` that must succeed, as its own process (answerOf). */
export async function adminOk(args: readonly string[]): Promise<Record<string, unknown>> {
  return answerOf(await haberci(['admin', ...args]), args);
}

/** `haberci admin ...` that must fail, as its own process (refusalOf). */
export async function adminFails(args: readonly string[], cwd?: string): Promise<string> {
  return refusalOf(await haberci(['admin', ...args], cwd), args);
}

/** A fresh data folder holding a migrated store, made in-process (not by the command under test). */
export async function storeFolder(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const runtime = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(dir) });
  await runtime.close();
  return dir;
}
