import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSmppConfig, parseSmppConfig } from '../../../../src/adapters/carriers/smpp/smpp-config.js';

const connection = { name: 'turkcell', host: '10.0.0.1', port: 2775, systemId: 'haberci', password: 'secret' };

describe('SMPP config', () => {
  it('fills defaults for a minimal file', () => {
    const result = parseSmppConfig({ connections: [connection], defaultRoute: 'turkcell' });
    assert.ok(result.ok);
    assert.deepEqual(
      result.ok && {
        ...result.config.connections[0],
        submitTimeoutMs: result.config.submitTimeoutMs,
        giveUpAfterMs: result.config.giveUpAfterMs,
      },
      {
        ...connection,
        systemType: '',
        bindMode: 'transceiver',
        windowSize: 10,
        maxSubmitsPerSecond: 50,
        maxBinds: 1,
        enquireLinkMs: 30000,
        reconnectMinMs: 1000,
        reconnectMaxMs: 60000,
        senderIdEncoding: 'ascii',
        submitTimeoutMs: 10000,
        giveUpAfterMs: 30000,
      },
    );
  });

  const bad: Array<[string, unknown, RegExp]> = [
    [
      'an unknown sender ID encoding',
      { connections: [{ ...connection, senderIdEncoding: 'latin1' }], defaultRoute: 'turkcell' },
      /senderIdEncoding/,
    ],
    [
      'unknown default route',
      { connections: [connection], defaultRoute: 'nope' },
      /defaultRoute: "nope" is not a connection name/,
    ],
    [
      'duplicate names',
      { connections: [connection, connection], defaultRoute: 'turkcell' },
      /"turkcell" is used twice/,
    ],
    [
      'password too long',
      { connections: [{ ...connection, password: '123456789' }], defaultRoute: 'turkcell' },
      /password is at most 8/,
    ],
    [
      'bad prefix',
      { connections: [{ ...connection, prefixes: ['+90'] }], defaultRoute: 'turkcell' },
      /prefixes are digits/,
    ],
    [
      'prefix on two connections',
      {
        connections: [
          { ...connection, prefixes: ['90532'] },
          { ...connection, name: 'b', prefixes: ['90532'] },
        ],
        defaultRoute: 'b',
      },
      /prefix 90532 is routed to both/,
    ],
    [
      'unknown field',
      { connections: [{ ...connection, windowsize: 5 }], defaultRoute: 'turkcell' },
      /Unrecognized key/,
    ],
    [
      'no binds',
      { connections: [{ ...connection, maxBinds: 0 }], defaultRoute: 'turkcell' },
      /connections\.0\.maxBinds/,
    ],
    [
      'a fraction of a bind',
      { connections: [{ ...connection, maxBinds: 1.5 }], defaultRoute: 'turkcell' },
      /connections\.0\.maxBinds/,
    ],
    [
      'bad bind mode',
      { connections: [{ ...connection, bindMode: 'receiver' }], defaultRoute: 'turkcell' },
      /connections\.0\.bindMode/,
    ],
  ];
  for (const [name, value, message] of bad) {
    it(`refuses ${name} with a clear message`, () => {
      const result = parseSmppConfig(value);
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.message, message);
    });
  }

  it('loads a file and reports unreadable or non-JSON files as messages', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'haberci-smpp-'));
    try {
      const good = join(dir, 'smpp.json');
      await writeFile(good, JSON.stringify({ connections: [connection], defaultRoute: 'turkcell' }));
      assert.equal((await loadSmppConfig(good)).ok, true);
      const broken = join(dir, 'broken.json');
      await writeFile(broken, '{ nope');
      const notJson = await loadSmppConfig(broken);
      assert.match(notJson.ok ? '' : notJson.message, /is not JSON/);
      const missing = await loadSmppConfig(join(dir, 'missing.json'));
      assert.match(missing.ok ? '' : missing.message, /cannot read SMPP config/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
