/**
 * `haberci admin sender-id add|list|remove`: a sender ID is checked when it is added, as
 * /sms/send checks `title` (at most 11, Turkish letters counting two) and for what a
 * carrier can send (ASCII and Turkish letters, digits, space, `. - _ & +`), once per account.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';

describe('haberci admin sender-id', { timeout: 180_000 }, () => {
  let dir: string;
  let account: string;
  let other: string;
  const store = (): string[] => ['--data', dir];
  const titles = async (id: string): Promise<unknown[]> =>
    (
      (await adminOk(['sender-id', 'list', '--account', id, ...store()])).sender_ids as {
        title: string;
        status: string;
      }[]
    ).map((s) => [s.title, s.status]);

  before(async () => {
    dir = await storeFolder('haberci-senderid-');
    account = String((await adminOk(['account', 'create', '--name', 'Titles', ...store()])).id);
    other = String((await adminOk(['account', 'create', '--name', 'Other', ...store()])).id);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [label, title, reason] of [
    ['18 characters', 'ABCDEFGHIJKLMNOPQR', /at most 11 characters .* counts 18/],
    ['12 characters', 'ABCDEFGHIJKL', /counts 12/],
    ['12 counting a Turkish letter as two', 'ABCDEFGHIJŞ', /Turkish letters count as two.* counts 12/],
    ['another non-ASCII title', 'CAFÉ', /ASCII/],
    ['a symbol outside the set', 'ACME!', /ASCII/],
    ['a surrounding space', ' ACME', /space/],
    ['no letter or digit', '...', /letter or digit/],
  ] as const) {
    it(`refuses ${label}, adding nothing`, async () => {
      assert.match(await adminFails(['sender-id', 'add', '--account', account, '--title', title, ...store()]), reason);
      assert.deepEqual(await titles(account), []);
    });
  }

  it('adds a title once per account (case-sensitive), lists them oldest first, and removes by id or by title', async () => {
    const added = await adminOk(['sender-id', 'add', '--account', account, '--title', 'ACME', ...store()]);
    assert.equal(added.title, 'ACME');
    assert.match(
      await adminFails([
        'sender-id',
        'add',
        '--account',
        account,
        '--title',
        'ACME',
        '--status',
        'pending',
        ...store(),
      ]),
      /already has the sender ID "ACME"/,
    );
    await adminOk([
      'sender-id',
      'add',
      '--account',
      account,
      '--title',
      'Acme Ltd.',
      '--status',
      'pending',
      ...store(),
    ]);
    await adminOk(['sender-id', 'add', '--account', account, '--title', 'ABCDEFGHIJK', ...store()]);
    // 9 + 2: a Turkish letter counts as two, and 11 fit.
    assert.equal(
      (await adminOk(['sender-id', 'add', '--account', account, '--title', 'ABCDEFGHIŞ', ...store()])).title,
      'ABCDEFGHIŞ',
    );
    await adminOk(['sender-id', 'add', '--account', other, '--title', 'ACME', ...store()]);
    assert.deepEqual(await titles(account), [
      ['ACME', 'approved'],
      ['Acme Ltd.', 'pending'],
      ['ABCDEFGHIJK', 'approved'],
      ['ABCDEFGHIŞ', 'approved'],
    ]);

    const removed = await adminOk(['sender-id', 'remove', '--id', String(added.id), ...store()]);
    assert.deepEqual(removed, { removed: true, ...added });
    assert.match(
      await adminFails(['sender-id', 'remove', '--id', String(added.id), ...store()]),
      /no sender ID with id/,
    );
    assert.equal(
      (await adminOk(['sender-id', 'remove', '--account', account, '--title', 'Acme Ltd.', ...store()])).title,
      'Acme Ltd.',
    );
    assert.match(
      await adminFails(['sender-id', 'remove', '--account', account, '--title', 'NOPE', ...store()]),
      /has no sender ID "NOPE"/,
    );
    assert.match(
      await adminFails(['sender-id', 'remove', '--account', account, ...store()]),
      /--id N, or with --account N --title TEXT/,
    );
    assert.deepEqual(await titles(account), [
      ['ABCDEFGHIJK', 'approved'],
      ['ABCDEFGHIŞ', 'approved'],
    ]);
    assert.deepEqual(await titles(other), [['ACME', 'approved']]);
    // A removed title can be added again.
    assert.equal(
      (await adminOk(['sender-id', 'add', '--account', account, '--title', 'ACME', ...store()])).title,
      'ACME',
    );
  });

  it('refuses an unknown account', async () => {
    assert.match(
      await adminFails(['sender-id', 'add', '--account', '999', '--title', 'ACME', ...store()]),
      /no account with id 999/,
    );
    assert.match(await adminFails(['sender-id', 'list', '--account', '999', ...store()]), /no account with id 999/);
  });
});
