import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';
import { openAppContainer } from '../../src/main.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('admin reseller brand', () => {
  let dir = '';
  let store: string[] = [];
  let reseller = '';
  let other = '';
  let flat = '';
  before(async () => {
    dir = await storeFolder('haberci-brand-');
    store = ['--data', dir];
    reseller = String((await adminOk(['account', 'create', '--name', 'Bayi A', ...store])).id);
    other = String((await adminOk(['account', 'create', '--name', 'Bayi B', ...store])).id);
    flat = String((await adminOk(['account', 'create', '--name', 'Flat', ...store])).id);
    await adminOk(['account', 'update', '--id', reseller, '--reseller', 'true', ...store]);
    await adminOk(['account', 'update', '--id', other, '--reseller', 'true', ...store]);
    writeFileSync(join(dir, 'logo.png'), png);
    writeFileSync(join(dir, 'logo.svg'), '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(dir, 'logo.gif'), 'GIF89a....');
    writeFileSync(join(dir, 'big.png'), Buffer.concat([png, Buffer.alloc(256 * 1024)]));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sets a brand (host lower-cased, colour kept lower-case, logo typed by its bytes) and prints it', async () => {
    const brand = await adminOk([
      'reseller',
      'brand',
      '--account',
      reseller,
      '--name',
      'Mavi SMS',
      '--host',
      'Panel.Mavi.Example',
      '--color',
      '#0A7F5C',
      '--support',
      'destek@mavi.example',
      '--logo',
      join(dir, 'logo.png'),
      ...store,
    ]);
    assert.equal(brand.account_id, Number(reseller));
    assert.equal(brand.name, 'Mavi SMS');
    assert.equal(brand.host, 'panel.mavi.example');
    assert.equal(brand.color, '#0a7f5c');
    assert.equal(brand.support, 'destek@mavi.example');
    assert.equal(brand.logo_type, 'image/png');
    const shown = await adminOk(['reseller', 'brand', '--account', reseller, ...store]);
    assert.deepEqual(shown, brand);
    const changed = await adminOk([
      'reseller',
      'brand',
      '--account',
      reseller,
      '--logo',
      join(dir, 'logo.svg'),
      ...store,
    ]);
    assert.equal(changed.logo_type, 'image/svg+xml');
    assert.equal(changed.name, 'Mavi SMS');
    const cleared = await adminOk(['reseller', 'brand', '--account', reseller, '--support', '', ...store]);
    assert.equal(cleared.support, null);
    assert.equal(cleared.host, 'panel.mavi.example');
  });

  it('a brand set without a name takes the account name', async () => {
    const brand = await adminOk(['reseller', 'brand', '--account', other, '--color', '#112233', ...store]);
    assert.equal(brand.name, 'Bayi B');
    assert.equal(brand.host, null);
  });

  it('refuses, each with its reason: no reseller, a host of another brand, a bad colour, a bad logo', async () => {
    assert.match(
      await adminFails(['reseller', 'brand', '--account', flat, '--name', 'X', ...store]),
      /is not a reseller/,
    );
    assert.match(
      await adminFails(['reseller', 'brand', '--account', other, '--host', 'PANEL.mavi.example', ...store]),
      /another brand's/,
    );
    assert.match(await adminFails(['reseller', 'brand', '--account', other, '--color', 'blue', ...store]), /#RRGGBB/);
    assert.match(
      await adminFails(['reseller', 'brand', '--account', other, '--host', 'not a host', ...store]),
      /DNS name/,
    );
    assert.match(
      await adminFails(['reseller', 'brand', '--account', other, '--logo', join(dir, 'logo.gif'), ...store]),
      /PNG, JPEG or SVG/,
    );
    assert.match(
      await adminFails(['reseller', 'brand', '--account', other, '--logo', join(dir, 'big.png'), ...store]),
      /at most 256 KiB/,
    );
    assert.match(await adminFails(['reseller', 'brand', '--account', '9999', '--name', 'X', ...store]), /no account/);
    const unchanged = await adminOk(['reseller', 'brand', '--account', other, ...store]);
    assert.equal(unchanged.host, null);
    assert.equal(unchanged.color, '#112233');
  });

  it('writes an audit row for each change, none for a show', async () => {
    const container = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(dir) });
    try {
      const rows = await container.store.audit.search({
        action: 'reseller.brand',
        accountId: Number(reseller),
        limit: 50,
      });
      // Three changes of the first test; its show and the refused commands wrote none.
      assert.equal(rows.length, 3);
      assert.ok(rows.every((r) => r.actor === 'cli'));
      assert.ok(rows.some((r) => /panel\.mavi\.example/i.test(r.detail ?? '')));
    } finally {
      await container.close();
    }
  });
});
