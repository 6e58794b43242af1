/**
 * Counting a key's requests on every dialect: exactly to its hourly, daily and monthly
 * limits under concurrency, in batches, each in its own window.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LimitHit } from '../../../src/domain/request-limits.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `store (${dialect.name})`, () => {
    const suite = storeSuite(dialect);
    const { newKey } = suite;
    let store: SqlStore;
    let handle: StoreConnection;
    before(() => {
      ({ store, handle } = suite);
    });

    describe('request counting', () => {
      const windows = { hour: '2026-03-15T12', day: '2026-03-15', month: '2026-03' };

      it('50 concurrent requests with an hourly limit of 20: exactly 20 are counted', async () => {
        const account = await store.accounts.createAccount(accountInput('Counted'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 20, daily: 0, monthly: 0 };
        const hits = await Promise.all(
          Array.from({ length: 50 }, () =>
            store.keys.consumeRequests([{ keyId, limits, windows }]).then(([hit = null]) => hit),
          ),
        );
        assert.equal(hits.filter((h) => h === null).length, 20);
        assert.equal(hits.filter((h) => h === 'hourly').length, 30);
        const row = await handle.db.selectFrom('key_usage').selectAll().where('key_id', '=', keyId).executeTakeFirst();
        assert.equal(row?.hour_count, 20);
        assert.equal(row?.day_count, 20);
        assert.equal(row?.month_count, 20);
      });

      it('a new window starts again at one, also under concurrency; the longer windows keep counting', async () => {
        const account = await store.accounts.createAccount(accountInput('Windows'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 20, daily: 30, monthly: 0 };
        const burst = (w: typeof windows): Promise<(LimitHit | null)[]> =>
          Promise.all(
            Array.from({ length: 50 }, () =>
              store.keys.consumeRequests([{ keyId, limits, windows: w }]).then(([hit = null]) => hit),
            ),
          );
        const first = await burst(windows);
        assert.equal(first.filter((h) => h === null).length, 20);
        const second = await burst({ ...windows, hour: '2026-03-15T13' });
        assert.equal(second.filter((h) => h === null).length, 10);
        assert.equal(second.filter((h) => h === 'daily').length, 40);
        const nextDay = await burst({ hour: '2026-03-16T00', day: '2026-03-16', month: '2026-03' });
        assert.equal(nextDay.filter((h) => h === null).length, 20);
      });

      it('batches of many requests of several keys, four at once: each key counted exactly to its limit, in arrival order', async () => {
        const account = await store.accounts.createAccount(accountInput('Batched'), now);
        const a = await newKey(account.id);
        const b = await newKey(account.id);
        const limitsA = { hourly: 0, daily: 30, monthly: 0 };
        const limitsB = { hourly: 10, daily: 0, monthly: 100 };
        const batch = (): { keyId: number; limits: typeof limitsA; windows: typeof windows }[] =>
          Array.from({ length: 25 }, (_, i) =>
            i % 2 === 0 ? { keyId: a, limits: limitsA, windows } : { keyId: b, limits: limitsB, windows },
          );
        const batches = await Promise.all(
          [batch(), batch(), batch(), batch()].map((items) =>
            store.keys.consumeRequests(items).then((hits) => ({ items, hits })),
          ),
        );
        const of = (keyId: number): (LimitHit | null)[] =>
          batches.flatMap(({ items, hits }) => hits.filter((_, i) => items[i]?.keyId === keyId));
        assert.equal(of(a).filter((h) => h === null).length, 30);
        assert.deepEqual([...new Set(of(a).filter((h) => h !== null))], ['daily']);
        assert.equal(of(b).filter((h) => h === null).length, 10);
        assert.deepEqual([...new Set(of(b).filter((h) => h !== null))], ['hourly']);
        // Within a batch the first requests are the ones admitted.
        for (const { items, hits } of batches) {
          const forB = hits.filter((_, i) => items[i]?.keyId === b);
          const firstRefused = forB.findIndex((h) => h !== null);
          if (firstRefused !== -1)
            assert.ok(
              forB.slice(firstRefused).every((h) => h !== null),
              JSON.stringify(forB),
            );
        }
        const rowB = await handle.db.selectFrom('key_usage').selectAll().where('key_id', '=', b).executeTakeFirst();
        assert.deepEqual([rowB?.hour_count, rowB?.day_count, rowB?.month_count], [10, 10, 10]);
      });

      it('a batch whose requests of one key straddle an hour counts each in its own window', async () => {
        const account = await store.accounts.createAccount(accountInput('Straddle'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 2, daily: 0, monthly: 0 };
        const next = { ...windows, hour: '2026-03-15T13' };
        const hits = await store.keys.consumeRequests(
          [windows, windows, windows, next, next, next].map((w) => ({ keyId, limits, windows: w })),
        );
        assert.deepEqual(hits, [null, null, 'hourly', null, null, 'hourly']);
      });

      it('answers a batch by position: one request object standing for several requests (a lease) gets an answer for each', async () => {
        const account = await store.accounts.createAccount(accountInput('Lease'), now);
        const keyId = await newKey(account.id);
        const request = { keyId, limits: { hourly: 3, daily: 0, monthly: 0 }, windows };
        assert.deepEqual(await store.keys.consumeRequests([request, request, request, request, request]), [
          null,
          null,
          null,
          'hourly',
          'hourly',
        ]);
      });

      it('a reached monthly limit is named over a reached hourly one', async () => {
        const account = await store.accounts.createAccount(accountInput('Named'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 1, daily: 0, monthly: 1 };
        assert.equal(await store.keys.consumeRequests([{ keyId, limits, windows }]).then(([hit = null]) => hit), null);
        assert.equal(
          await store.keys.consumeRequests([{ keyId, limits, windows }]).then(([hit = null]) => hit),
          'monthly',
        );
      });
    });
  });
}
