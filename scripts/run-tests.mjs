#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's own test runner.
// Node 20's runner does not expand globs, so the files are listed here; and `node --test`
// sorts the files it is given, so they go to run() instead, which keeps their order.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

// Each test file runs in a child of this process, with its flags and environment.
if (!process.execArgv.includes('--enable-source-maps')) {
  const again = spawnSync(process.execPath, ['--enable-source-maps', ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
  });
  process.exit(again.status ?? 1);
}

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
// The process suites are the longest: started first, they do not trail a run of two at a time.
const files = find('dist/test')
  .filter((f) => kind === 'all' || (kind === 'process') === isProcess(f))
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort((a, b) => Number(isProcess(b)) - Number(isProcess(a)) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}
const stream = run({ files: files.map((f) => resolve(f)), concurrency: 2 });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(spec).pipe(process.stdout);
