/**
 * `haberci admin key otp` (issue 36): shows a key's OTP settings with the defaults, changes
 * those given (the others stay), puts one back to its default, refuses bad values, and
 * writes an audit row for a change. `haberci admin otp holds` and `otp release`: the
 * conversion watch's holds listed and released (audited); `key rotate` carries a key's
 * OTP settings, standing holds and prefix rates to the new key. `haberci admin account otp`
 * (issue 42): the provider's narrowing of an account's OTP countries.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';

describe('haberci admin key otp', { timeout: 120_000 }, () => {
  let dir: string;
  let keyId: string;
  let accountId = 0;
  const store = (): string[] => ['--data', dir];

  before(async () => {
    dir = await storeFolder('haberci-otp-');
    const account = await adminOk(['account', 'create', '--name', 'Otp', '--balance', '10', ...store()]);
    accountId = Number(account.id);
    keyId = String((await adminOk(['key', 'create', '--account', String(account.id), ...store()])).id);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the defaults, changes what is given, keeps the rest, and goes back to a default', async () => {
    const shown = await adminOk(['key', 'otp', '--id', keyId, ...store()]);
    assert.deepEqual(shown, {
      key_id: Number(keyId),
      validity_seconds: 300,
      max_tries: 5,
      countries: 'all',
      per_number_hour: 5,
      per_number_day: 10,
      per_prefix_minute: 0,
      prefix_rise: 10,
      prefix_rise_min: 1000,
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
        'prefix_rise',
        'prefix_rise_min',
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
      '--prefix-rise',
      '4',
      '--prefix-rise-min',
      '200',
      ...store(),
    ]);
    assert.deepEqual(
      [
        changed.countries,
        changed.cooldown_seconds,
        changed.validity_seconds,
        changed.max_tries,
        changed.prefix_rise,
        changed.prefix_rise_min,
      ],
      [['90', '49'], 30, 120, 5, 4, 200],
    );
    const again = await adminOk(['key', 'otp', '--id', keyId, '--tries', '3', ...store()]);
    assert.deepEqual([again.countries, again.cooldown_seconds, again.max_tries], [['90', '49'], 30, 3]);
    const back = await adminOk(['key', 'otp', '--id', keyId, '--countries', 'all', ...store()]);
    assert.equal(back.countries, 'all');
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

  it('narrows an account\u2019s OTP countries (audited) and widens them back to all', async () => {
    const id = String(accountId);
    const narrowed = await adminOk(['account', 'otp', '--id', id, '--countries', '90,44', ...store()]);
    assert.deepEqual(narrowed, { account_id: accountId, countries: ['90', '44'] });
    assert.equal((await adminOk(['account', 'otp', '--id', id, '--countries', 'all', ...store()])).countries, 'all');
    const db = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true });
    try {
      const rows = db
        .prepare(`select detail from audit_log where action = 'account.otp' and account_id = ? order by id`)
        .all(accountId) as { detail: string }[];
      assert.deepEqual(
        rows.map((r) => (JSON.parse(r.detail) as { otp_countries: string }).otp_countries),
        ['90,44', 'all'],
      );
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

  it('lists the conversion watch\u2019s holds, releases one (audited), and a rotated key keeps settings and holds', async () => {
    const account = await adminOk(['account', 'create', '--name', 'Held', '--balance', '10', ...store()]);
    const held = String((await adminOk(['key', 'create', '--account', String(account.id), ...store()])).id);
    await adminOk(['key', 'otp', '--id', held, '--watch-min-share', '35', '--countries', '90,49', ...store()]);
    const db = new BetterSqlite3(join(dir, 'haberci.sqlite'));
    try {
      const insert = db.prepare(
        `insert into otp_holds (key_id, prefix, held_at, account_id, sent, verified, previous_sent, released_at)
         values (?, ?, ?, ?, ?, ?, ?, null)`,
      );
      insert.run(Number(held), '90532', Date.UTC(2026, 10, 27, 10), Number(account.id), 40, 1, 3);
      insert.run(Number(held), '90533', Date.UTC(2026, 10, 27, 11), Number(account.id), 25, 0, 0);
      db.prepare(
        `insert into otp_prefix_rates (key_id, prefix, minute, codes, baseline) values (?, '90532', 29000000, 40, 2500.5)`,
      ).run(Number(held));
    } finally {
      db.close();
    }
    const listed = (await adminOk(['otp', 'holds', '--account', String(account.id), ...store()])) as unknown as {
      prefix: string;
      verified_percent: number;
      released_at: string | null;
    }[];
    assert.deepEqual(
      listed.map((h) => [h.prefix, h.verified_percent, h.released_at]),
      [
        ['90533', 0, null],
        ['90532', 3, null],
      ],
    );
    const released = await adminOk(['otp', 'release', '--key', held, '--prefix', '+90533', ...store()]);
    assert.deepEqual(released, { key_id: Number(held), account_id: account.id, prefix: '90533', released: 1 });
    assert.match(
      await adminFails(['otp', 'release', '--key', held, '--prefix', '90533', ...store()]),
      /no standing OTP hold of 90533/,
    );
    const standing = (await adminOk(['otp', 'holds', '--key', held, ...store()])) as unknown as { prefix: string }[];
    assert.deepEqual(
      standing.map((h) => h.prefix),
      ['90532'],
    );
    const all = (await adminOk(['otp', 'holds', '--key', held, '--all', ...store()])) as unknown as unknown[];
    assert.equal(all.length, 2);

    // Rotation: the new key has the old one's OTP settings and its standing hold.
    const rotated = String((await adminOk(['key', 'rotate', '--id', held, ...store()])).id);
    assert.notEqual(rotated, held);
    const settings = await adminOk(['key', 'otp', '--id', rotated, ...store()]);
    assert.deepEqual([settings.watch_min_share, settings.countries], [35, ['90', '49']]);
    const rates = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true });
    try {
      // And the rise rule's history of its prefixes: a rotated key is not judged as a new sender.
      assert.deepEqual(
        rates.prepare(`select prefix, minute, codes, baseline from otp_prefix_rates where key_id = ?`).all(rotated),
        [{ prefix: '90532', minute: 29000000, codes: 40, baseline: 2500.5 }],
      );
    } finally {
      rates.close();
    }
    const carried = (await adminOk(['otp', 'holds', '--key', rotated, ...store()])) as unknown as {
      prefix: string;
      account_id: number;
    }[];
    assert.deepEqual(
      carried.map((h) => [h.prefix, h.account_id]),
      [['90532', account.id]],
    );

    const audit = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true });
    try {
      const row = audit
        .prepare(`select account_id, object_type, object_id, detail from audit_log where action = 'otp.release'`)
        .get() as { account_id: number; object_type: string; object_id: string; detail: string };
      assert.deepEqual(
        [row.account_id, row.object_type, row.object_id, (JSON.parse(row.detail) as { prefix: string }).prefix],
        [account.id, 'key', held, '90533'],
      );
    } finally {
      audit.close();
    }
  });
});
