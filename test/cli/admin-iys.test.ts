/**
 * `haberci admin iys configure` and `iys show` (issue 34): the account's İYS settings, with
 * the password sealed in the store under a key file of mode 0600 (or kept as a secret file's
 * path), never printed; bad input refused with one line and nothing changed; the RET words
 * it sets are the ones an inbound reply is compared with.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';
import { openSecret } from '../../src/util/secret-box.js';

describe('haberci admin iys configure', () => {
  let dir = '';
  let account = '';
  const password = 'iys-Pa55word-never-shown';
  before(async () => {
    dir = await storeFolder('haberci-iys-admin-');
    account = String((await adminOk(['account', 'create', '--name', 'Brand', '--data', dir])).id);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function storedSecret(): string {
    const db = new BetterSqlite3(join(dir, 'haberci.sqlite'), { fileMustExist: true });
    try {
      const row = db.prepare('SELECT password_secret FROM iys_settings WHERE account_id = ?').get(Number(account)) as {
        password_secret: string | null;
      };
      return row.password_secret ?? '';
    } finally {
      db.close();
    }
  }

  it('stores the codes and the password encrypted, and never prints it', async () => {
    const out = await adminOk([
      'iys',
      'configure',
      '--account',
      account,
      '--iys-code',
      '700001',
      '--brand-code',
      '800001',
      '--url',
      'http://127.0.0.1:9/',
      '--username',
      'brand-api',
      '--password',
      password,
      '--ret-words',
      'DUR,RET',
      '--text-rules',
      'refuse',
      '--data',
      dir,
    ]);
    assert.equal(JSON.stringify(out).includes(password), false, JSON.stringify(out));
    assert.equal(out.iys_code, '700001');
    assert.equal(out.brand_code, '800001');
    assert.equal(out.username, 'brand-api');
    assert.equal(out.password, 'encrypted');
    assert.deepEqual(out.ret_words, ['DUR', 'RET']);
    assert.equal(out.text_rules, 'refuse');
    const sealed = storedSecret();
    assert.ok(sealed.startsWith('sealed:'), sealed);
    assert.equal(sealed.includes(password), false, 'the store holds no clear password');
    const keyFile = join(dir, 'secret.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    assert.equal(openSecret(key, sealed.slice('sealed:'.length)), password, 'the key file opens it');
    const shown = await adminOk(['iys', 'show', '--account', account, '--data', dir]);
    assert.equal(JSON.stringify(shown).includes(password), false);
    assert.equal(shown.password, 'encrypted');
  });

  it('keeps a secret file by its path, and the other settings when they are not given', async () => {
    const file = join(dir, 'iys-password.txt');
    writeFileSync(file, password, { mode: 0o600 });
    const out = await adminOk([
      'iys',
      'configure',
      '--account',
      account,
      '--iys-code',
      '700002',
      '--brand-code',
      '800002',
      '--password-file',
      file,
      '--data',
      dir,
    ]);
    assert.equal(out.password, 'secret file');
    assert.equal(out.username, 'brand-api', 'kept');
    assert.deepEqual(out.ret_words, ['DUR', 'RET'], 'kept');
    assert.equal(out.text_rules, 'refuse', 'kept');
    assert.equal(storedSecret(), `file:${file}`);
  });

  it('refuses bad input with one line, the password never in it, and changes nothing', async () => {
    const base = ['iys', 'configure', '--account', account, '--brand-code', '1', '--data', dir];
    assert.match(await adminFails([...base, '--iys-code', 'abc']), /iys-code/);
    const both = await adminFails([...base, '--iys-code', '1', '--password', password, '--password-file', '/x']);
    assert.equal(both.includes(password), false, both);
    assert.match(await adminFails([...base, '--iys-code', '1', '--url', 'ftp://x']), /url/);
    assert.match(await adminFails([...base, '--iys-code', '1', '--text-rules', 'maybe']), /text-rules/);
    assert.match(
      await adminFails(['iys', 'configure', '--account', '999', '--iys-code', '1', '--brand-code', '1', '--data', dir]),
      /no account/,
    );
    const shown = await adminOk(['iys', 'show', '--account', account, '--data', dir]);
    assert.equal(shown.iys_code, '700002');
  });
});
