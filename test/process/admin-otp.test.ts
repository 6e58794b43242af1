/**
 * `haberci admin key otp` (issue 36): shows a key's OTP settings with the defaults, changes
 * those given (the others stay), puts one back to its default, refuses bad values, and
 * writes an audit row for a change.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { adminFails, adminOk, storeFolder } from '../helpers/admin-cli.js';

describe('haberci admin key otp', { timeout: 90_000 }, () => {
  let dir: string;
  let keyId: string;
  const store = (): string[] => ['--data', dir];

  before(async () => {
    dir = await storeFolder('haberci-otp-');
    const account = await adminOk(['account', 'create', '--name', 'Otp', '--balance', '10', ...store()]);
    keyId = String((await adminOk(['key', 'create', '--account', String(account.id), ...store()])).id);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the defaults, changes what is given, keeps the rest, and goes back to a default', async () => {
    const shown = await adminOk(['key', 'otp', '--id', keyId, ...store()]);
    assert.deepEqual(shown, {
      key_id: Number(keyId),
      validity_seconds: 300,
      max_tries: 5,
      countries: ['90'],
      per_number_hour: 5,
      per_number_day: 10,
      per_prefix_minute: 30,
      cooldown_seconds: 0,
      watch_min_sent: 20,
      watch_min_share: 20,
      watch_rise: 2,
      defaults: [
        'validity_seconds',
        'max_tries',
        'countries',
        'per_number_hour',
        'per_number_day',
        'per_prefix_minute',
        'cooldown_seconds',
        'watch_min_sent',
        'watch_min_share',
        'watch_rise',
      ],
    });
    const changed = await adminOk([
      'key',
      'otp',
      '--id',
      keyId,
      '--countries',
      '90,+49',
      '--cooldown',
      '30',
      '--validity',
      '120',
      ...store(),
    ]);
    assert.deepEqual(
      [changed.countries, changed.cooldown_seconds, changed.validity_seconds, changed.max_tries],
      [['90', '49'], 30, 120, 5],
    );
    const again = await adminOk(['key', 'otp', '--id', keyId, '--tries', '3', ...store()]);
    assert.deepEqual([again.countries, again.cooldown_seconds, again.max_tries], [['90', '49'], 30, 3]);
    const back = await adminOk(['key', 'otp', '--id', keyId, '--countries', 'default', ...store()]);
    assert.deepEqual(back.countries, ['90']);
    assert.deepEqual(back.defaults, [
      'countries',
      'per_number_hour',
      'per_number_day',
      'per_prefix_minute',
      'watch_min_sent',
      'watch_min_share',
      'watch_rise',
    ]);
    const db = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true });
    try {
      const rows = db.prepare(`select count(*) as n from audit_log where action = 'key.otp'`).get() as { n: number };
      assert.equal(rows.n, 3);
    } finally {
      db.close();
    }
  });

  it('refuses bad values and unknown keys, changing nothing', async () => {
    assert.match(await adminFails(['key', 'otp', '--id', keyId, '--countries', 'DE', ...store()]), /calling codes/);
    assert.match(
      await adminFails(['key', 'otp', '--id', keyId, '--validity', '10', ...store()]),
      /between 30 and 3600/,
    );
    assert.match(await adminFails(['key', 'otp', '--id', '9999', ...store()]), /no key with id 9999/);
    const shown = await adminOk(['key', 'otp', '--id', keyId, ...store()]);
    assert.equal(shown.max_tries, 3);
  });
});
