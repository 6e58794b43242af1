/**
 * The reseller options of `haberci admin` as scripts use them (../shared/interfaces.md,
 * "Resellers"): `account update --reseller true`, `account create --parent N`, `account
 * list` and `account show` naming the reseller; a refusal is one line and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { adminFails, adminOk, storeFolder } from '../helpers/admin-cli.js';

describe('haberci admin: resellers', { timeout: 60_000 }, () => {
  let dir: string;
  const store = (): string[] => ['--data', dir];
  before(async () => {
    dir = await storeFolder('haberci-resellers-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a reseller, creates its customer, and names the reseller in show and list', async () => {
    const reseller = await adminOk(['account', 'create', '--name', 'Bayi', ...store()]);
    const id = String(reseller.id);
    assert.match(
      await adminFails(['account', 'create', '--name', 'Early', '--parent', id, ...store()]),
      /not a reseller/,
    );
    const updated = await adminOk(['account', 'update', '--id', id, '--reseller', 'true', ...store()]);
    assert.equal(updated.reseller, true);
    const customer = await adminOk(['account', 'create', '--name', 'Customer', '--parent', id, ...store()]);
    assert.equal(customer.parent_id, reseller.id);
    const shown = await adminOk(['account', 'show', '--id', String(customer.id), ...store()]);
    assert.equal(shown.reseller_name, 'Bayi');
    const listed = (await adminOk(['account', 'list', ...store()])).accounts as Record<string, unknown>[];
    assert.deepEqual(
      listed.map((a) => [a.id, a.reseller, a.parent_id, a.reseller_name]),
      [
        [reseller.id, true, null, null],
        [customer.id, false, reseller.id, 'Bayi'],
      ],
    );
    assert.match(
      await adminFails(['account', 'update', '--id', id, '--reseller', 'false', ...store()]),
      /still owns 1 customer/,
    );
    assert.equal((await adminOk(['account', 'show', '--id', id, ...store()])).reseller, true);
  });
});
