/**
 * The `haberci` binary itself, one family of admin commands at a time: a command that works
 * exits 0 with one JSON object on stdout and nothing on stderr, a refused one exits 1 with
 * nothing on stdout and one line on stderr, and the default store is ./data of the working
 * directory. What each command decides is tested in-process (test/cli/), through the same
 * command tree (src/cli/program.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminFails, adminOk, haberci, storeFolder } from '../helpers/admin-cli.js';
import { adminOk as adminOkInProcess } from '../helpers/cli.js';

describe('the haberci binary, one admin command family at a time', { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-binary-'));
    dirs.push(dir);
    return dir;
  };
  let data: string;
  const store = (): string[] => ['--data', data];
  let account: string;
  let key: string;
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  // The store and its rows are made in-process: the processes are for the commands under test.
  before(async () => {
    data = await storeFolder('haberci-binary-');
    dirs.push(data);
    account = String(
      (await adminOkInProcess(['account', 'create', '--name', 'Binary', '--balance', '5', ...store()])).id,
    );
    key = String((await adminOkInProcess(['key', 'create', '--account', account, ...store()])).id);
  });

  it('--version prints the package version and exits 0', async () => {
    const run = await haberci(['--version']);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.deepEqual([run.code, run.stdout.trim(), run.stderr], [0, version, '']);
  });

  it('store: a missing store is refused and not made, the default being ./data of the working directory', async () => {
    const cwd = fresh();
    assert.equal(
      await adminFails(['account', 'show', '--id', '1'], cwd),
      `haberci: no store at ${join(cwd, 'data')} (\`haberci serve\` or \`haberci admin store init\` creates one)`,
    );
    assert.deepEqual(readdirSync(cwd), []);
    assert.deepEqual(await adminOk(['store', 'init', ...store()]), {
      store: join(data, 'haberci.sqlite'),
      created: false,
    });
    const made = fresh();
    assert.deepEqual(await adminOk(['store', 'init', '--data', made]), {
      store: join(made, 'haberci.sqlite'),
      created: true,
    });
  });

  it('account: show, and a refused option (commander\u2019s own message)', async () => {
    assert.equal((await adminOk(['account', 'show', '--id', account, ...store()])).balance_main, 5);
    assert.match(await adminFails(['account', 'create', ...store()]), /--name/);
  });

  it('key: show, and a key that is not there', async () => {
    assert.equal((await adminOk(['key', 'show', '--id', key, ...store()])).id, Number(key));
    assert.match(await adminFails(['key', 'show', '--id', '999', ...store()]), /999/);
  });

  it('sender-id: add, and a title refused', async () => {
    assert.equal(
      (await adminOk(['sender-id', 'add', '--account', account, '--title', 'BINARY', ...store()])).title,
      'BINARY',
    );
    assert.match(
      await adminFails(['sender-id', 'add', '--account', account, '--title', 'MUCH TOO LONG A TITLE', ...store()]),
      /title/i,
    );
  });

  it('user: list, and a user that is not there', async () => {
    assert.ok(Array.isArray((await adminOk(['user', 'list', '--account', account, ...store()])).users));
    assert.match(await adminFails(['user', 'disable', '--id', '999', ...store()]), /999/);
  });

  it('otp: a key\u2019s OTP settings, and a key that is not there', async () => {
    assert.equal((await adminOk(['key', 'otp', '--id', key, ...store()])).key_id, Number(key));
    assert.match(await adminFails(['key', 'otp', '--id', '999', ...store()]), /999/);
  });

  it('iys, smpp-user, inbound-route, webhook, blocklist: an answer or a refusal each', async () => {
    assert.equal(
      await adminFails(['iys', 'show', '--account', account, ...store()]),
      `haberci: account ${account} has no İYS settings`,
    );
    assert.deepEqual(await adminOk(['smpp-user', 'list', '--account', account, ...store()]), { smpp_users: [] });
    const route = await adminOk(['inbound-route', 'add', '--account', account, '--number', '4444', ...store()]);
    assert.deepEqual([route.destination, route.account_id], ['4444', Number(account)]);
    assert.equal(
      await adminFails(['webhook', 'deliveries', '--key', '999', ...store()]),
      'haberci: no key with id 999',
    );
    assert.equal(
      await adminFails(['blocklist', 'remove', '--account', account, '--number', 'x', ...store()]),
      'haberci: not a Türkiye mobile number: x',
    );
  });
});
