/**
 * `haberci admin blocklist remove --account N --number TEXT` as scripts run it
 * (interfaces.md): `{"removed": true|false}` on stdout, or one line on stderr and exit 1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRuntime } from '../../src/main.js';
import { sqliteFileIn } from '../../src/adapters/store/database.js';

/** The repository root: this file runs as dist/test/cli/blocklist-remove.test.js. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Without the caller's HABERCI_* options and the runner's NODE_TEST_CONTEXT (see serve-process.test.ts). */
function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HABERCI_') && k !== 'NODE_TEST_CONTEXT') out[k] = v;
  return out;
}

async function haberci(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('./bin/haberci', args, { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('haberci admin blocklist remove', { timeout: 60_000 }, () => {
  let data: string;
  let accountId: number;

  before(async () => {
    data = mkdtempSync(join(tmpdir(), 'haberci-blocklist-'));
    const runtime = await openRuntime({ dialect: 'sqlite', file: sqliteFileIn(data) });
    try {
      accountId = (await runtime.admin.createAccount({ name: 'A', balanceMain: 0, balanceInternational: 0, perMinuteLimit: 0, otpBrand: '', ipAllow: [], globalSending: false })).id;
      const added = await runtime.services.blocklist.add(accountId, '05321234567');
      assert.equal(added.ok, true);
    } finally {
      await runtime.close();
    }
  });
  after(() => rmSync(data, { recursive: true, force: true }));

  it('prints {"removed": true} for a listed number in another form, then {"removed": false}', async () => {
    const first = await haberci(['admin', 'blocklist', 'remove', '--account', String(accountId), '--number', '+90 532 123 45 67', '--data', data]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { removed: true });
    assert.equal(first.stderr, '');
    const second = await haberci(['admin', 'blocklist', 'remove', '--account', String(accountId), '--number', '905321234567', '--data', data]);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), { removed: false });
    const runtime = await openRuntime({ dialect: 'sqlite', file: sqliteFileIn(data) });
    try {
      const status = await runtime.services.blocklist.status(accountId, '5321234567');
      assert.equal(status.ok && status.value.code, 'TS-1142');
    } finally {
      await runtime.close();
    }
  });

  for (const [label, args] of [
    ['an unknown account', ['--account', '999', '--number', '05321234567']],
    ['a number that is not a Türkiye mobile', ['--account', '1', '--number', '02121234567']],
    ['a missing --number', ['--account', '1']],
  ] as const) {
    it(`fails with one line on stderr and exit 1 for ${label}`, async () => {
      const run = await haberci(['admin', 'blocklist', 'remove', ...args, '--data', data]);
      assert.equal(run.code, 1, run.stdout);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
    });
  }
});
