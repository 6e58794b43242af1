/**
 * `haberci admin` never creates a store it did not find (only `serve` and
 * `admin store init` do): pointed at the wrong folder or database, it says "no store at
 * ..." and exits 1, leaving nothing behind.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { adminFails, adminOk } from '../helpers/cli.js';

describe('haberci admin against a store that is not there', { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-nostore-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('an empty --data folder: "no store at" its file, and the folder stays empty', async () => {
    const dir = fresh();
    const message = await adminFails(['key', 'create', '--account', '1', '--data', dir]);
    assert.equal(
      message,
      `haberci: no store at ${join(dir, 'haberci.sqlite')} (\`haberci serve\` or \`haberci admin store init\` creates one)`,
    );
    assert.deepEqual(readdirSync(dir), []);
  });

  it('a --data folder that does not exist is not made', async () => {
    const missing = join(fresh(), 'no', 'such', 'dir');
    assert.match(
      await adminFails(['account', 'create', '--name', 'A', '--data', missing]),
      new RegExp(`^haberci: no store at ${missing} `),
    );
    assert.equal(existsSync(join(missing, '..', '..')), false);
  });

  it('a file that is no store (no migration table) is not one', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'haberci.sqlite'), '');
    assert.match(await adminFails(['account', 'create', '--name', 'A', '--data', dir]), /^haberci: no store at /);
  });

  it('admin store init creates the store once; then the commands work', async () => {
    const dir = fresh();
    assert.deepEqual(await adminOk(['store', 'init', '--data', dir]), {
      store: join(dir, 'haberci.sqlite'),
      created: true,
    });
    assert.deepEqual(await adminOk(['store', 'init', '--data', dir]), {
      store: join(dir, 'haberci.sqlite'),
      created: false,
    });
    assert.equal((await adminOk(['account', 'create', '--name', 'Made', '--data', dir])).name, 'Made');
  });

  const url = postgresUrl();
  it(
    'PostgreSQL: a schema without the store\u2019s tables is no store, and gets none; the message shows no password',
    { skip: url === '' ? 'set HABERCI_TEST_DATABASE to run it' : false },
    async () => {
      const schema = testSchemaName();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
        const target = new URL(url);
        target.password = 'never-shown-pw';
        target.searchParams.set('options', `-c search_path=${schema}`);
        const message = await adminFails(['account', 'create', '--name', 'A', '--database', target.toString()]);
        assert.match(message, /^haberci: no store at postgres:\/\//);
        assert.equal(message.includes('never-shown-pw'), false, message);
        const tables = await client.query(`select table_name from information_schema.tables where table_schema = $1`, [
          schema,
        ]);
        assert.equal(tables.rowCount, 0);
        assert.equal((await adminOk(['store', 'init', '--database', target.toString()])).created, true);
        assert.equal(
          (await adminOk(['account', 'create', '--name', 'Made', '--database', target.toString()])).name,
          'Made',
        );
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    },
  );
});
