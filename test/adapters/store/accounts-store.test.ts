/**
 * Accounts on every dialect: the ledger, and the balance that never goes negative, even
 * under concurrent spends.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, isAccount, now, storeSuite } from '../../helpers/store-suite.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `store (${dialect.name})`, () => {
    const suite = storeSuite(dialect);
    const { ledger } = suite;
    let store: SqlStore;
    let handle: StoreConnection;
    before(() => {
      ({ store, handle } = suite);
    });

    describe('ledger and balance', () => {
      it('records every balance change with balance_after', async () => {
        const account = await store.accounts.createAccount(accountInput('Ledger', 100, 20), now);
        assert.equal(account.balanceMain, 100);
        assert.equal(account.balanceInternational, 20);
        const spent = await store.accounts.adjustBalance(account.id, 'main', -30, 'send', 'sms:1', now);
        assert.ok(isAccount(spent));
        assert.equal(spent.balanceMain, 70);
        await store.accounts.adjustBalance(account.id, 'international', 5, 'top-up', null, now);
        await store.accounts.adjustBalance(account.id, 'main', 1, 'refund', 'sms:1', now);
        assert.deepEqual(await ledger(account.id), [
          { bucket: 'main', delta: 100, balance_after: 100, reason: 'opening balance', reference: null },
          { bucket: 'international', delta: 20, balance_after: 20, reason: 'opening balance', reference: null },
          { bucket: 'main', delta: -30, balance_after: 70, reason: 'send', reference: 'sms:1' },
          { bucket: 'international', delta: 5, balance_after: 25, reason: 'top-up', reference: null },
          { bucket: 'main', delta: 1, balance_after: 71, reason: 'refund', reference: 'sms:1' },
        ]);
        const final = await store.accounts.getAccount(account.id);
        assert.equal(final?.balanceMain, 71);
        assert.equal(final?.balanceInternational, 25);
      });

      it('the ledger sums to the balance', async () => {
        const account = await store.accounts.createAccount(accountInput('Sums', 10), now);
        for (const delta of [5, -3, 12, -24, 7])
          await store.accounts.adjustBalance(account.id, 'main', delta, 'x', null, now);
        const rows = await ledger(account.id);
        const sum = rows.reduce((s, r) => s + r.delta, 0);
        assert.equal(sum, 7);
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 7);
        assert.equal(rows.at(-1)?.balance_after, 7);
      });

      it('an account opened with no balance has no ledger rows', async () => {
        const account = await store.accounts.createAccount(accountInput('Empty'), now);
        assert.deepEqual(await ledger(account.id), []);
      });

      it('adjustBalance answers insufficient and changes nothing when the balance would go negative', async () => {
        const account = await store.accounts.createAccount(accountInput('Poor', 100), now);
        const before = await ledger(account.id);
        assert.equal(await store.accounts.adjustBalance(account.id, 'main', -101, 'send', null, now), 'insufficient');
        assert.equal(
          await store.accounts.adjustBalance(account.id, 'international', -1, 'send', null, now),
          'insufficient',
        );
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 100);
        assert.deepEqual(await ledger(account.id), before);
        const drained = await store.accounts.adjustBalance(account.id, 'main', -100, 'send', null, now);
        assert.ok(isAccount(drained));
        assert.equal(drained.balanceMain, 0);
        assert.equal(await store.accounts.adjustBalance(account.id, 'main', -1, 'send', null, now), 'insufficient');
      });

      it('adjustBalance answers null for an unknown account and writes nothing', async () => {
        assert.equal(await store.accounts.adjustBalance(999_999, 'main', 10, 'x', null, now), null);
        assert.deepEqual(await ledger(999_999), []);
      });

      it('the balance can never go negative, even by a direct SQL UPDATE', async () => {
        const account = await store.accounts.createAccount(accountInput('Guarded', 5, 5), now);
        await assert.rejects(
          handle.db.updateTable('accounts').set({ balance_main: -1 }).where('id', '=', account.id).execute(),
        );
        await assert.rejects(
          sql`UPDATE accounts SET balance_international = balance_international - 6 WHERE id = ${account.id}`.execute(
            handle.db,
          ),
        );
        await assert.rejects(
          handle.db
            .insertInto('ledger')
            .values({
              account_id: account.id,
              bucket: 'main',
              delta: -6,
              balance_after: -1,
              reason: 'x',
              reference: null,
              created_at: now,
            })
            .execute(),
        );
        const seen = await store.accounts.getAccount(account.id);
        assert.equal(seen?.balanceMain, 5);
        assert.equal(seen?.balanceInternational, 5);
      });

      it('balances and times are plain numbers, large ones included', async () => {
        const big = 2 ** 40;
        const account = await store.accounts.createAccount(accountInput('Big', big), now);
        const seen = await store.accounts.getAccount(account.id);
        assert.equal(typeof seen?.balanceMain, 'number');
        assert.equal(seen?.balanceMain, big);
        assert.equal(typeof seen?.createdAt, 'number');
        assert.equal(seen?.createdAt, now);
      });

      it('50 concurrent spends of 10 from 300 never overspend: exactly 30 succeed', async () => {
        const account = await store.accounts.createAccount(accountInput('Race', 300), now);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.accounts.adjustBalance(account.id, 'main', -10, 'send', `sms:${i}`, now),
          ),
        );
        assert.equal(results.filter(isAccount).length, 30);
        assert.equal(results.filter((r) => r === 'insufficient').length, 20);
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 0);
        const spends = (await ledger(account.id)).filter((r) => r.delta === -10);
        assert.equal(spends.length, 30);
        assert.deepEqual(
          spends.map((r) => r.balance_after).sort((a, b) => a - b),
          Array.from({ length: 30 }, (_, i) => i * 10),
        );
      });

      it('a failed transaction leaves neither balance nor ledger changed', async () => {
        const account = await store.accounts.createAccount(accountInput('Rollback', 50), now);
        await assert.rejects(
          store.transaction(async (s) => {
            await s.accounts.adjustBalance(account.id, 'main', 100, 'top-up', null, now);
            throw new Error('after the write');
          }),
          /after the write/,
        );
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 50);
        assert.equal((await ledger(account.id)).length, 1);
      });
    });
  });
}
