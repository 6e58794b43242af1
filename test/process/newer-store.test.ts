/**
 * A store that a newer haberci migrated (a migration recorded in it that this build does
 * not know): `serve` and `admin` refuse it with a message that says so, exit non-zero, and
 * leave the store as it was. Both dialects; real processes.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { haberci } from '../helpers/admin-cli.js';
import { adminOk } from '../helpers/cli.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';

const future = '9999-from-a-newer-version';
const expected = new RegExp(`^haberci: .*newer version of haberci.*${future}.*unknown to this version`);

/** `serve` and an admin command, each refused with the message; returns their stderr lines. */
async function bothRefuse(storeArgs: string[]): Promise<void> {
  const serve = await haberci(['serve', '--port', '0', '--demo', 'false', ...storeArgs]);
  assert.notEqual(serve.code, 0, `serve started:\n${serve.stdout}${serve.stderr}`);
  assert.doesNotMatch(serve.stdout, /haberci ready on/);
  assert.match(serve.stderr.trim(), expected, serve.stderr);
  const account = await haberci(['admin', 'account', 'create', '--name', 'Refused', ...storeArgs]);
  assert.equal(account.code, 1);
  assert.equal(account.stdout, '');
  assert.match(account.stderr.trim(), expected);
}

describe('a store migrated by a newer version', { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('SQLite: serve and admin refuse it, exit non-zero, and the store is untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-newer-'));
    dirs.push(dir);
    await adminOk(['store', 'init', '--data', dir]);
    await adminOk(['account', 'create', '--name', 'Before', '--data', dir]);
    const file = join(dir, 'haberci.sqlite');
    const snapshot = (): string => {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        const schema = db.prepare('select type, name, sql from sqlite_master order by type, name').all();
        const migrations = db.prepare('select name, timestamp from kysely_migration order by name').all();
        const accounts = db.prepare('select * from accounts order by id').all();
        return JSON.stringify({ schema, migrations, accounts });
      } finally {
        db.close();
      }
    };
    const db = new BetterSqlite3(file);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run(future, new Date().toISOString());
    db.close();
    const before = snapshot();
    assert.match(before, new RegExp(future));
    await bothRefuse(['--data', dir]);
    assert.equal(snapshot(), before);
  });

  const url = postgresUrl();
  it(
    'PostgreSQL: serve and admin refuse it, exit non-zero, and the store is untouched',
    { skip: url === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false },
    async () => {
      const schema = testSchemaName();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`create schema ${schema}`);
        const target = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        await adminOk(['store', 'init', '--database', target]);
        await adminOk(['account', 'create', '--name', 'Before', '--database', target]);
        await client.query(`insert into ${schema}.kysely_migration (name, timestamp) values ($1, $2)`, [
          future,
          new Date().toISOString(),
        ]);
        const snapshot = async (): Promise<string> => {
          const tables = await client.query(
            'select table_name, column_name, data_type from information_schema.columns where table_schema = $1 order by 1, 2',
            [schema],
          );
          const migrations = await client.query(`select name, timestamp from ${schema}.kysely_migration order by name`);
          const accounts = await client.query(`select * from ${schema}.accounts order by id`);
          return JSON.stringify({ tables: tables.rows, migrations: migrations.rows, accounts: accounts.rows });
        };
        const before = await snapshot();
        await bothRefuse(['--database', target]);
        assert.equal(await snapshot(), before);
      } finally {
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
    },
  );
});
