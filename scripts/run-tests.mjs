#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's own test runner.
// Node 20's runner does not expand globs, so the files are listed here. `node --test` sorts
// the files it is given, so the process suites (the longest) run as a first batch and the
// rest after them. (node:test's run() kept the order in one batch, but hung twice here
// after a file had finished; `node --test` is the runner CI has always used.)
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

// `--unit`: every suite but test/process/; `--process`: only test/process/ (the suites that
// start haberci processes). Other arguments keep the files whose path contains one of them.
const args = process.argv.slice(2);
const kind = args.includes('--process') ? 'process' : args.includes('--unit') ? 'unit' : 'all';
const filter = args.filter((a) => a !== '--unit' && a !== '--process');
const processDir = join('dist', 'test', 'process') + '/';
const isProcess = (f) => f.startsWith(processDir);
const files = find('dist/test')
  .filter((f) => kind === 'all' || (kind === 'process') === isProcess(f))
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}

let failed = false;
for (const batch of [files.filter(isProcess), files.filter((f) => !isProcess(f))]) {
  if (batch.length === 0) continue;
  const result = spawnSync(
    process.execPath,
    ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-reporter=spec', ...batch],
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
