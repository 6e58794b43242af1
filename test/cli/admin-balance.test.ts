/**
 * `account topup` only adds credit; taking it back is `account debit`, with a reason that
 * the ledger records. A refused command changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { adminFails, adminOk, storeFolder } from '../helpers/cli.js';

describe('haberci admin account topup and debit', { timeout: 60_000 }, () => {
  let dir: string;
  let id: string;
  const store = (): string[] => ['--data', dir];
  const balances = async (): Promise<[unknown, unknown]> => {
    const shown = await adminOk(['account', 'show', '--id', id, ...store()]);
    return [shown.balance_main, shown.balance_international];
  };
  const ledger = (): { bucket: string; delta: number; reason: string }[] => {
    const db = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true });
    try {
      return db
        .prepare('select bucket, delta, reason from ledger where account_id = ? order by id')
        .all(Number(id)) as { bucket: string; delta: number; reason: string }[];
    } finally {
      db.close();
    }
  };

  before(async () => {
    dir = await storeFolder('haberci-balance-');
    id = String(
      (
        await adminOk([
          'account',
          'create',
          '--name',
          'Credit',
          '--balance',
          '100',
          '--international-balance',
          '10',
          ...store(),
        ])
      ).id,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const amount of ['-5', '0', '1.5', 'ten']) {
    it(`topup --amount ${amount} is refused and changes nothing`, async () => {
      assert.match(await adminFails(['account', 'topup', '--id', id, '--amount', amount, ...store()]), /--amount/);
      assert.deepEqual(await balances(), [100, 10]);
    });
  }

  it('a debit takes credit back with its reason in the ledger, never below zero', async () => {
    assert.deepEqual(await adminOk(['account', 'topup', '--id', id, '--amount', '5', ...store()]), {
      id: Number(id),
      balance_main: 105,
      balance_international: 10,
    });
    assert.deepEqual(
      await adminOk(['account', 'debit', '--id', id, '--amount', '30', '--reason', 'duplicate top-up', ...store()]),
      {
        id: Number(id),
        balance_main: 75,
        balance_international: 10,
        debited: 30,
        reason: 'duplicate top-up',
      },
    );
    assert.equal(
      (
        await adminOk([
          'account',
          'debit',
          '--id',
          id,
          '--amount',
          '4',
          '--reason',
          'refund',
          '--international',
          ...store(),
        ])
      ).balance_international,
      6,
    );
    assert.match(
      await adminFails(['account', 'debit', '--id', id, '--amount', '76', '--reason', 'too much', ...store()]),
      /main balance is less than 76; nothing was debited/,
    );
    assert.match(await adminFails(['account', 'debit', '--id', id, '--amount', '5', ...store()]), /--reason/);
    assert.match(
      await adminFails(['account', 'debit', '--id', id, '--amount', '-5', '--reason', 'x', ...store()]),
      /--amount/,
    );
    assert.match(
      await adminFails(['account', 'debit', '--id', '999', '--amount', '1', '--reason', 'x', ...store()]),
      /no account with id 999/,
    );
    assert.deepEqual(await balances(), [75, 6]);
    assert.deepEqual(ledger().slice(-3), [
      { bucket: 'main', delta: 5, reason: 'top-up' },
      { bucket: 'main', delta: -30, reason: 'debit: duplicate top-up' },
      { bucket: 'international', delta: -4, reason: 'debit: refund' },
    ]);
  });
});
