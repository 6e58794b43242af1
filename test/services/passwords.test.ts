/**
 * Password hashes: scrypt with N = 2^15 in production. Test runs lower N
 * (test/helpers/test-costs.ts, docs/decisions.md "Tests"); this proves the lowering is
 * theirs alone: a process without the preload hashes at full cost, and no file of src/ calls
 * the test-only setter.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { it } from 'node:test';
import { hashPassword, scryptParams, verifyPassword } from '../../src/services/passwords.js';

const run = promisify(execFile);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

it('a process without the test preload hashes with N = 2^15, r = 8, p = 1', async () => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_OPTIONS') env[k] = v;
  const module = resolve('dist/src/services/passwords.js');
  const { stdout } = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const p = await import(${JSON.stringify(module)}); const h = await p.hashPassword('a long password'); console.log(JSON.stringify([h, p.unusableHash, await p.verifyPassword('a long password', h)]));`,
    ],
    { env },
  );
  const [hash, unusable, verified] = JSON.parse(stdout) as [string, string, boolean];
  assert.equal(scryptParams.N, 2 ** 15);
  assert.match(hash, /^scrypt\$32768\$8\$1\$/);
  assert.match(unusable, /^scrypt\$32768\$8\$1\$/);
  assert.equal(verified, true);
});

it('a hash keeps its parameters: it verifies whatever cost hashes are made at now', async () => {
  const hash = await hashPassword('another long password');
  assert.equal(await verifyPassword('another long password', hash), true);
  assert.equal(await verifyPassword('a wrong password!', hash), false);
});

it('no file of src/ but passwords.ts names the test-only cost setter', () => {
  const naming = sources('src').filter((path) => readFileSync(path, 'utf8').includes('useScryptCostForTestsOnly'));
  assert.deepEqual(naming, [join('src', 'services', 'passwords.ts')]);
});
