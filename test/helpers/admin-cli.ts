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
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** `haberci admin ...` that must succeed: one JSON object on stdout, nothing on stderr. */
export async function adminOk(args: readonly string[]): Promise<Record<string, unknown>> {
  const run = await haberci(['admin', ...args]);
  assert.equal(run.code, 0, `admin ${args.join(' ')}: ${run.stderr}`);
  assert.equal(run.stderr, '');
  assert.equal(run.stdout.trimEnd().split('\n').length, 1, run.stdout);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** `haberci admin ...` that must fail: exit 1, nothing on stdout, one line on stderr (returned). */
export async function adminFails(args: readonly string[], cwd?: string): Promise<string> {
  const run = await haberci(['admin', ...args], cwd);
  assert.equal(run.code, 1, `admin ${args.join(' ')} should fail: ${run.stdout}`);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr: ${run.stderr}`);
  assert.notEqual(lines[0], '');
  return lines[0] ?? '';
}

/** A fresh data folder holding a migrated store, made in-process (not by the command under test). */
export async function storeFolder(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const runtime = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(dir) });
  await runtime.close();
  return dir;
}
