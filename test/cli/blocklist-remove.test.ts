/**
 * `haberci admin blocklist remove --account N --number TEXT` as scripts run it
 * (interfaces.md): `{"removed": true|false}` on stdout, or one line on stderr and exit 1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAppContainer } from '../../src/main.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';
import { haberci } from '../helpers/cli.js';
import { valueOf } from '../helpers/results.js';

describe('haberci admin blocklist remove', { timeout: 60_000 }, () => {
  let data: string;
  let accountId: number;

  before(async () => {
    data = mkdtempSync(join(tmpdir(), 'haberci-blocklist-'));
    const runtime = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(data) });
    try {
      accountId = (
        await valueOf(
          runtime.admin.createAccount({
            name: 'A',
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        )
      ).id;
      const added = await runtime.services.blocklist.add(accountId, '05321234567');
      assert.equal(added.ok, true);
    } finally {
      await runtime.close();
    }
  });
  after(() => rmSync(data, { recursive: true, force: true }));

  it('prints {"removed": true} for a listed number in another form, then {"removed": false}', async () => {
    const first = await haberci([
      'admin',
      'blocklist',
      'remove',
      '--account',
      String(accountId),
      '--number',
      '+90 532 123 45 67',
      '--data',
      data,
    ]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { removed: true });
    assert.equal(first.stderr, '');
    const second = await haberci([
      'admin',
      'blocklist',
      'remove',
      '--account',
      String(accountId),
      '--number',
      '905321234567',
      '--data',
      data,
    ]);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), { removed: false });
    const runtime = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(data) });
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
