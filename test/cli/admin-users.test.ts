import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';

describe('admin user and sender-id review commands', () => {
  let dir = '';
  let store: string[] = [];
  let accountId = '';
  before(async () => {
    dir = await storeFolder('haberci-users-');
    store = ['--data', dir];
    accountId = String((await adminOk(['account', 'create', '--name', 'Users', ...store])).id);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a user with a password, and one without, who gets a one-time set-password link', async () => {
    const withPassword = await adminOk([
      'user',
      'create',
      '--account',
      accountId,
      '--email',
      'Alice@Example.com',
      '--password',
      'alice-password',
      ...store,
    ]);
    assert.equal(withPassword.email, 'alice@example.com');
    assert.equal(withPassword.account_id, Number(accountId));
    assert.equal(withPassword.password_set, true);
    assert.equal(withPassword.set_password_link, undefined);
    const invited = await adminOk([
      'user',
      'create',
      '--account',
      accountId,
      '--email',
      'bob@example.com',
      '--panel-url',
      'https://panel.example.com/panel',
      ...store,
    ]);
    assert.equal(invited.password_set, false);
    assert.match(
      String(invited.set_password_link),
      /^https:\/\/panel\.example\.com\/panel\/set-password\?token=[A-Za-z0-9_-]{40,}$/,
    );
    const provider = await adminOk([
      'user',
      'create',
      '--provider',
      '--email',
      'ops@example.com',
      '--password',
      'provider-password',
      ...store,
    ]);
    assert.equal(provider.provider, true);
    assert.equal(provider.account_id, null);
  });

  it('points a reseller\u2019s customer\u2019s link at the brand\u2019s host, over https, unless --panel-url says where', async () => {
    const reseller = String((await adminOk(['account', 'create', '--name', 'Mavi Bayi', ...store])).id);
    await adminOk(['account', 'update', '--id', reseller, '--reseller', 'true', ...store]);
    const customer = String(
      (await adminOk(['account', 'create', '--parent', reseller, '--name', 'Ayse', ...store])).id,
    );
    const flat = String((await adminOk(['account', 'create', '--name', 'Flat', ...store])).id);
    const invite = (email: string, account: string, extra: string[] = []) =>
      adminOk(['user', 'create', '--account', account, '--email', email, ...extra, ...store]);
    // No host yet: the provider's panel.
    assert.match(
      String((await invite('early@example.com', customer)).set_password_link),
      /^http:\/\/127\.0\.0\.1:8080\/panel\//,
    );
    await adminOk([
      'reseller',
      'brand',
      '--account',
      reseller,
      '--name',
      'Mavi SMS',
      '--host',
      'panel.mavi.example',
      ...store,
    ]);
    const invited = await invite('ayse@example.com', customer);
    assert.match(
      String(invited.set_password_link),
      /^https:\/\/panel\.mavi\.example\/panel\/set-password\?token=[A-Za-z0-9_-]{40,}$/,
    );
    const reset = await adminOk(['user', 'reset-password', '--id', String(invited.id), ...store]);
    assert.match(String(reset.set_password_link), /^https:\/\/panel\.mavi\.example\/panel\/set-password\?token=/);
    const told = await invite('told@example.com', customer, ['--panel-url', 'http://mavi.internal:8080/panel']);
    assert.match(String(told.set_password_link), /^http:\/\/mavi\.internal:8080\/panel\/set-password\?token=/);
    // The reseller's own users and a flat account's are the provider's customers: its panel.
    assert.match(
      String((await invite('bayi@example.com', reseller)).set_password_link),
      /^http:\/\/127\.0\.0\.1:8080\//,
    );
    assert.match(String((await invite('flat@example.com', flat)).set_password_link), /^http:\/\/127\.0\.0\.1:8080\//);
  });

  it('refuses a second user with the same email, a short password, an unknown account, and both --account and --provider', async () => {
    assert.match(
      await adminFails([
        'user',
        'create',
        '--account',
        accountId,
        '--email',
        'alice@example.com',
        '--password',
        'another-password',
        ...store,
      ]),
      /exists already/,
    );
    assert.match(
      await adminFails([
        'user',
        'create',
        '--account',
        accountId,
        '--email',
        'carol@example.com',
        '--password',
        'short',
        ...store,
      ]),
      /at least 10 characters/,
    );
    assert.match(
      await adminFails(['user', 'create', '--account', '999', '--email', 'dave@example.com', ...store]),
      /no account with id 999/,
    );
    assert.match(
      await adminFails([
        'user',
        'create',
        '--account',
        accountId,
        '--provider',
        '--email',
        'eve@example.com',
        ...store,
      ]),
      /either --account N or --provider/,
    );
  });

  it('lists, disables and resets the password of users', async () => {
    const listed = (await adminOk(['user', 'list', '--account', accountId, ...store])).users as {
      id: number;
      email: string;
    }[];
    assert.deepEqual(
      listed.map((u) => u.email),
      ['alice@example.com', 'bob@example.com'],
    );
    const alice = listed[0]?.id ?? 0;
    const disabled = await adminOk(['user', 'disable', '--id', String(alice), ...store]);
    assert.equal(disabled.status, 'disabled');
    const reset = await adminOk(['user', 'reset-password', '--id', String(alice), ...store]);
    assert.equal(reset.password_set, false);
    assert.match(String(reset.set_password_link), /^http:\/\/127\.0\.0\.1:8080\/panel\/set-password\?token=/);
    assert.match(await adminFails(['user', 'disable', '--id', '999', ...store]), /no user with id 999/);
  });

  it('approves and rejects requested sender IDs, a rejection with its reason', async () => {
    const pending = await adminOk([
      'sender-id',
      'add',
      '--account',
      accountId,
      '--title',
      'PENDING',
      '--status',
      'pending',
      ...store,
    ]);
    const approved = await adminOk(['sender-id', 'approve', '--id', String(pending.id), ...store]);
    assert.equal(approved.status, 'approved');
    const other = await adminOk([
      'sender-id',
      'add',
      '--account',
      accountId,
      '--title',
      'OTHER',
      '--status',
      'pending',
      ...store,
    ]);
    const rejected = await adminOk([
      'sender-id',
      'reject',
      '--id',
      String(other.id),
      '--reason',
      'Not your brand',
      ...store,
    ]);
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.reason, 'Not your brand');
    assert.match(await adminFails(['sender-id', 'reject', '--id', String(other.id), ...store]), /reason/);
    assert.match(await adminFails(['sender-id', 'approve', '--id', '999', ...store]), /no sender ID with id 999/);
  });
});
