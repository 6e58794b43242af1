#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js), each in its own `node --test`
// child, a few at a time, longest first. Each file has a wall-clock limit: a file that hangs
// (an open handle, a child that never exits) is killed with its whole process group and
// reported, so one hang costs minutes, not CI's 90. A file's output is printed whole when it
// ends, so parallel files do not interleave; a summary of the slowest files and of every
// failure closes the run.
//
// Longest first: the durations of the last run are kept in .tmp/test-timings.json (ignored
// by git); without it (a clean clone) the process suites, the slow ones, go first.
//
// Arguments: `--unit` (every suite but test/process/), `--process` (only test/process/);
// any other argument keeps the files whose path contains it.
// Environment: HABERCI_TEST_CONCURRENCY (default 3), HABERCI_TEST_FILE_TIMEOUT_S (default 300).
// Every file's NODE_OPTIONS preloads dist/test/helpers/test-costs.js (a test-only password
// hash cost), which the processes a test starts inherit.
//
// CPU: each file runs under /usr/bin/time (when it is there), which reports the user and
// system time of the file's process and of every child it waited for (`serve`, `admin`, the
// simulators; PostgreSQL's own backends are not counted). The run is bound by CPU, not by
// waits (docs/decisions.md, "Tests"), so the summary gives each file's CPU seconds beside its
// wall seconds and the run's total, and .tmp/test-cpu.json keeps the last run's figures.
import {
  readdirSync,
  statSync,
  readFileSync,
  writeFileSync,
  mkdirSync,
  existsSync,
  rmSync,
  mkdtempSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { setTimeout, clearTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const kind = args.includes('--process') ? 'process' : args.includes('--unit') ? 'unit' : 'all';
const filter = args.filter((a) => a !== '--unit' && a !== '--process');
const processDir = join('dist', 'test', 'process') + '/';
const isProcess = (f) => f.startsWith(processDir);
const files = find('dist/test')
  .filter((f) => kind === 'all' || (kind === 'process') === isProcess(f))
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}

const timingsPath = join('.tmp', 'test-timings.json');
let known = {};
try {
  known = JSON.parse(readFileSync(timingsPath, 'utf8'));
} catch {
  known = {};
}
const guess = (f) => known[f] ?? (isProcess(f) ? 60 : 5);
files.sort((a, b) => guess(b) - guess(a) || a.localeCompare(b));

const concurrency = Math.max(1, Number(process.env.HABERCI_TEST_CONCURRENCY ?? 3));
const limitS = Math.max(10, Number(process.env.HABERCI_TEST_FILE_TIMEOUT_S ?? 300));
// Every test process, and every process it starts, preloads test/helpers/test-costs.ts
// (password hashes at a test-only cost; docs/decisions.md, "Tests").
const preload = pathToFileURL(resolve('dist/test/helpers/test-costs.js')).href;
const nodeOptions = [process.env.NODE_OPTIONS ?? '', `--import=${preload}`].join(' ').trim();
const started = Date.now();
const results = [];
const timeBin = '/usr/bin/time';
const cpuDir = existsSync(timeBin) ? mkdtempSync(join(tmpdir(), 'haberci-test-cpu-')) : null;
let cpuFiles = 0;

/** The file's CPU seconds (user + system, its children included) from /usr/bin/time's report, or null. */
function readCpu(path) {
  try {
    const m = /CPU (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)/.exec(readFileSync(path, 'utf8'));
    return m ? Number(m[1]) + Number(m[2]) : null;
  } catch {
    return null;
  }
}

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const nodeArgs = [process.execPath, '--enable-source-maps', '--test', '--test-reporter=spec', file];
    const cpuPath = cpuDir === null ? null : join(cpuDir, `${cpuFiles++}.txt`);
    const [command, ...commandArgs] =
      cpuPath === null ? nodeArgs : [timeBin, '-q', '-f', 'CPU %U %S', '-o', cpuPath, ...nodeArgs];
    const child = spawn(command, commandArgs, {
      env: { ...process.env, NODE_ENV: 'test', NODE_OPTIONS: nodeOptions },
      detached: true,
    });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group has already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 5000).unref();
    }, limitS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the file's children left behind goes with it.
      killGroup('SIGKILL');
      const seconds = (Date.now() - t0) / 1000;
      const cpu = cpuPath === null ? null : readCpu(cpuPath);
      const ok = code === 0 && !timedOut;
      const verdict = timedOut ? `TIMED OUT after ${limitS} s` : ok ? 'ok' : `FAILED (exit ${code ?? signal})`;
      const cpuText = cpu === null ? '' : `, ${cpu.toFixed(1)} s of CPU`;
      process.stdout.write(
        `\n── ${file}: ${verdict} in ${seconds.toFixed(1)} s${cpuText}\n` + Buffer.concat(chunks).toString(),
      );
      results.push({ file, seconds, cpu, ok, verdict, output: ok ? '' : Buffer.concat(chunks).toString() });
      resolve();
    });
  });
}

/** The reporter's "failing tests" section of a file's output, or its last lines, at most 80 lines. */
function failureExcerpt(output) {
  const lines = output.split('\n');
  const from = lines.findIndex((l) => l.startsWith('✖ failing tests'));
  const picked = from >= 0 ? lines.slice(from) : lines.slice(-60);
  return picked.length > 80
    ? [...picked.slice(0, 80), `… (${picked.length - 80} more lines not shown)`].join('\n')
    : picked.join('\n');
}

const queue = [...files];
async function worker() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runFile(file);
}
const stopAll = () => process.exit(130);
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);
await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));

const failed = results.filter((r) => !r.ok);
const total = (Date.now() - started) / 1000;
const cpuTotal = results.reduce((sum, r) => sum + (r.cpu ?? 0), 0);
const cpuSummary = cpuDir === null ? '' : `, ${cpuTotal.toFixed(0)} s of CPU`;
console.log(`\n══ ${results.length} test files in ${total.toFixed(0)} s (${concurrency} at a time)${cpuSummary}`);
console.log('slowest (wall s, CPU s):');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 12)) {
  const cpu = r.cpu === null ? '' : r.cpu.toFixed(1);
  console.log(`  ${r.seconds.toFixed(1).padStart(7)} s ${cpu.padStart(7)} s  ${r.file}`);
}
if (cpuDir !== null) {
  console.log('most CPU (CPU s):');
  for (const r of [...results].sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0)).slice(0, 12)) {
    console.log(`  ${(r.cpu ?? 0).toFixed(1).padStart(7)} s  ${r.file}`);
  }
  rmSync(cpuDir, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.log(`failed (${failed.length}):`);
  for (const r of failed) console.log(`  ${r.file}: ${r.verdict}`);
  // Again at the very end, where a CI log's tail shows it: what failed in each, from the
  // reporter's list of failing tests (or the output's last lines), cut to a screenful.
  for (const r of failed) console.log(`\n── why ${r.file} failed:\n${failureExcerpt(r.output)}`);
} else {
  console.log('every file passed');
}

try {
  mkdirSync('.tmp', { recursive: true });
  for (const r of results) known[r.file] = Math.round(r.seconds * 10) / 10;
  writeFileSync(timingsPath, JSON.stringify(known, null, 1) + '\n');
  const cpuPath = join('.tmp', 'test-cpu.json');
  let cpuKnown = {};
  try {
    cpuKnown = JSON.parse(readFileSync(cpuPath, 'utf8'));
  } catch {
    cpuKnown = {};
  }
  for (const r of results) if (r.cpu !== null) cpuKnown[r.file] = Math.round(r.cpu * 10) / 10;
  writeFileSync(cpuPath, JSON.stringify(cpuKnown, null, 1) + '\n');
} catch {
  // timings only order the next run
}
process.exit(failed.length > 0 ? 1 : 0);
