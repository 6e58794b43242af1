/**
 * `haberci admin` commands that change something write an audit row (actor cli, the OS
 * user as the address), visible in the provider console's audit log; reads write none,
 * and no row holds a password, key or webhook secret given to or printed by a command.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { adminOk, storeFolder } from '../helpers/cli.js';
import { createPanelHarness } from '../helpers/panel.js';
import type { PanelHarness } from '../helpers/panel.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';
import { valueOf } from '../helpers/results.js';

describe('haberci admin writes the audit log', { timeout: 120_000 }, () => {
  let dir: string;
  let h: PanelHarness;
  const store = (): string[] => ['--data', dir];
  const secrets: string[] = [];

  before(async () => {
    dir = await storeFolder('haberci-audit-');
    const account = String(
      (await adminOk(['account', 'create', '--name', 'Audited', '--balance', '10', ...store()])).id,
    );
    await adminOk(['account', 'topup', '--id', account, '--amount', '90', ...store()]);
    await adminOk(['account', 'debit', '--id', account, '--amount', '5', '--reason', 'wrong charge', ...store()]);
    await adminOk(['account', 'update', '--id', account, '--status', 'Suspended', ...store()]);
    await adminOk(['account', 'show', '--id', account, ...store()]);
    const webhookSecret = 'cli-webhook-secret-value';
    const key = await adminOk([
      'key',
      'create',
      '--account',
      account,
      '--webhook-url',
      'https://hooks.example/x',
      '--webhook-secret',
      webhookSecret,
      ...store(),
    ]);
    const rotated = await adminOk(['key', 'rotate', '--id', String(key.id), ...store()]);
    const userPassword = 'cli-user-password-1';
    await adminOk([
      'user',
      'create',
      '--account',
      account,
      '--email',
      'cli-user@example.com',
      '--password',
      userPassword,
      ...store(),
    ]);
    const invited = await adminOk(['user', 'create', '--provider', '--email', 'staff@example.com', ...store()]);
    const pending = await adminOk([
      'sender-id',
      'add',
      '--account',
      account,
      '--title',
      'CLIBRAND',
      '--status',
      'pending',
      ...store(),
    ]);
    await adminOk(['sender-id', 'approve', '--id', String(pending.id), ...store()]);
    secrets.push(
      webhookSecret,
      String(key.api_key),
      String(rotated.api_key),
      userPassword,
      /token=([^&]+)/.exec(String(invited.set_password_link))?.[1] ?? 'no-link',
    );
    h = await createPanelHarness({ dialect: 'sqlite', file: sqliteFileIn(dir) });
    await valueOf(h.users.create({ accountId: null, email: 'console@example.com', password: 'console-password' }));
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records each change as actor cli, with the OS user and the account, and nothing for reads', async () => {
    const rows = await h.runtime.store.audit.search({ actor: 'cli', limit: 100 });
    assert.deepEqual(rows.map((r) => r.action).reverse(), [
      'account.create',
      'account.topup',
      'account.debit',
      'account.update',
      'key.create',
      'key.rotate',
      'user.create',
      'user.create',
      'sender-id.add',
      'sender-id.approve',
    ]);
    assert.ok(rows.every((r) => r.actor === 'cli' && r.actorUserId === null && r.address === userInfo().username));
    const debit = rows.find((r) => r.action === 'account.debit');
    assert.deepEqual(JSON.parse(debit?.detail ?? '{}'), { amount: 5, reason: 'wrong charge' });
    const rotation = rows.find((r) => r.action === 'key.rotate');
    assert.equal(rotation?.accountId, debit?.accountId, 'a rotation names the key\u2019s account');
    assert.equal(rows.find((r) => r.action === 'account.update')?.detail, JSON.stringify({ status: 'Suspended' }));
  });

  it('never records a password, key, token or webhook secret', async () => {
    const rows = await h.runtime.store.audit.search({ limit: 1000 });
    for (const row of rows) {
      const text = JSON.stringify(row);
      for (const secret of secrets) assert.ok(!text.includes(secret), `a secret in ${text}`);
      assert.doesNotMatch(text, /hb_(live|test)_/);
    }
  });

  it('shows the commands\u2019 rows in the provider console\u2019s audit log', async () => {
    const p = h.browser();
    await p.get('/panel/sign-in');
    assert.equal(
      (await p.post('/panel/sign-in', { email: 'console@example.com', password: 'console-password' })).status,
      303,
    );
    const page = await p.get('/panel/provider/audit?actor=cli&action=account.');
    assert.equal(page.status, 200);
    assert.deepEqual(
      [...page.body.matchAll(/<td class="action">([^<]+)<\/td>/g)].map((m) => m[1]),
      ['account.update', 'account.debit', 'account.topup', 'account.create'],
    );
    assert.match(page.body, /<td>cli<\/td>/);
  });
});
