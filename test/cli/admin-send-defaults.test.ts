/**
 * `haberci admin account update --send-window --speed --validity-minutes`: an account's send
 * defaults (docs/api.md, "Send window, speed and validity"), set, shown, changed one at a
 * time, taken away with `none`, and refused when out of their rules (nothing changes).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';

describe('haberci admin account update: send defaults', { timeout: 120_000 }, () => {
  let dir: string;
  let id = '';
  const store = (): string[] => ['--data', dir];

  before(async () => {
    dir = await storeFolder('haberci-send-defaults-');
    id = String((await adminOk(['account', 'create', '--name', 'Defaults', ...store()])).id);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sets, shows, changes one at a time and takes away the defaults', async () => {
    assert.equal((await adminOk(['account', 'show', '--id', id, ...store()])).send_defaults, null);
    const window = '{"from": "22:00", "to": "02:00", "days": [5, 6]}';
    const set = await adminOk(['account', 'update', '--id', id, '--send-window', window, '--speed', '120', ...store()]);
    assert.deepEqual(set.send_defaults, {
      send_window: { from: '22:00', to: '02:00', days: [5, 6] },
      speed: 120,
      validity_minutes: null,
    });
    const more = await adminOk(['account', 'update', '--id', id, '--validity-minutes', '2880', ...store()]);
    assert.deepEqual(more.send_defaults, {
      send_window: { from: '22:00', to: '02:00', days: [5, 6] },
      speed: 120,
      validity_minutes: 2880,
    });
    const shown = await adminOk(['account', 'show', '--id', id, ...store()]);
    assert.deepEqual(shown.send_defaults, more.send_defaults);
    const fewer = await adminOk([
      'account',
      'update',
      '--id',
      id,
      '--send-window',
      'none',
      '--speed',
      'none',
      ...store(),
    ]);
    assert.deepEqual(fewer.send_defaults, { send_window: null, speed: null, validity_minutes: 2880 });
    const none = await adminOk(['account', 'update', '--id', id, '--validity-minutes', 'none', ...store()]);
    assert.equal(none.send_defaults, null);
  });

  it('refuses values out of their rules, and changes nothing', async () => {
    await adminOk(['account', 'update', '--id', id, '--speed', '60', ...store()]);
    for (const [option, value, says] of [
      ['--speed', '0', /between 1 and 100000/],
      ['--validity-minutes', '2881', /between 1 and 2880/],
      ['--send-window', '{"from": "09:00", "to": "09:00"}', /must differ/],
      ['--send-window', '{"from": "09:00", "to": "18:00", "days": [8]}', /days/],
      ['--send-window', 'weekdays', /must be JSON/],
    ] as const) {
      const refusal = await adminFails(['account', 'update', '--id', id, option, value, ...store()]);
      assert.match(refusal, says, `${option} ${value}`);
    }
    const shown = await adminOk(['account', 'show', '--id', id, ...store()]);
    assert.deepEqual(shown.send_defaults, { send_window: null, speed: 60, validity_minutes: null });
  });
});
