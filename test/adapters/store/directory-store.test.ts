/**
 * The directory store (groups, contacts, blocking list) on every dialect: what holds under
 * concurrency (one group per name, one entry per subscriber, contacts never outliving
 * their group) and that contacts go with their group.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import { storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';

const now = Date.UTC(2026, 2, 15, 9, 0, 0);

for (const dialect of testDialects()) {
  describeOn(dialect, `directory store (${dialect.name})`, () => {
    let handle: StoreConnection;
    let store: SqlStore;
    let accountId: number;

    before(async () => {
      handle = openConnection(await dialect.location());
      await migrate(handle);
      store = storeOn(handle);
      const account = await store.accounts.createAccount(
        {
          name: 'A',
          balanceMain: 0,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        },
        now,
      );
      accountId = account.id;
    });
    after(async () => {
      await store.close();
      await dialect.cleanup();
    });

    async function contactRows(groupId: number): Promise<number> {
      const row = await handle.db
        .selectFrom('contacts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('group_id', '=', groupId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    it('deletes a group\u2019s contacts with it', async () => {
      const group = await store.directory.createGroup(accountId, 'Cascade', now);
      assert.notEqual(group, 'duplicate');
      if (group === 'duplicate') return;
      assert.equal(await store.directory.addContacts(accountId, group.id, ['905321234567', '905331234567'], now), 2);
      assert.equal(await contactRows(group.id), 2);
      assert.equal(await store.directory.deleteGroup(accountId, group.id), true);
      assert.equal(await contactRows(group.id), 0);
      assert.equal(await store.directory.addContacts(accountId, group.id, ['905321234567'], now), null);
    });

    it('creates one group per name under concurrent creation, and refuses a rename onto a taken name', async () => {
      const results = await Promise.all(
        Array.from({ length: 16 }, () => store.directory.createGroup(accountId, 'Same', now)),
      );
      assert.equal(results.filter((r) => r !== 'duplicate').length, 1);
      const other = await store.directory.createGroup(accountId, 'Other', now);
      if (other === 'duplicate') return assert.fail('Other is new');
      assert.equal(await store.directory.renameGroup(accountId, other.id, 'Same'), 'duplicate');
      assert.equal(await store.directory.renameGroup(accountId + 1000, other.id, 'Free'), 'not-found');
      const renamed = await store.directory.renameGroup(accountId, other.id, 'Free');
      assert.equal(renamed !== 'duplicate' && renamed !== 'not-found' ? renamed.name : renamed, 'Free');
    });

    it('adds contacts racing a delete of their group without error or orphans', async () => {
      const numbers = Array.from({ length: 3000 }, (_, i) => `9053${String(i).padStart(8, '0')}`);
      for (let round = 0; round < 6; round++) {
        const group = await store.directory.createGroup(accountId, `Racing ${round}`, now);
        if (group === 'duplicate') return assert.fail('the name is new');
        const adds = Array.from({ length: 4 }, (_, i) =>
          store.directory.addContacts(accountId, group.id, numbers.slice(i * 750, (i + 1) * 750), now),
        );
        const [deleted, ...added] = await Promise.all([store.directory.deleteGroup(accountId, group.id), ...adds]);
        assert.equal(deleted, true);
        for (const a of added) assert.ok(a === null || a === 750, String(a));
        assert.equal(await contactRows(group.id), 0);
      }
    });

    it('keeps one blocking entry per subscriber under concurrent adds', async () => {
      const entry = { number: '905441234567', subscriber: '5441234567' };
      const results = await Promise.all(
        Array.from({ length: 16 }, () => store.directory.blockNumber(accountId, entry, now)),
      );
      assert.equal(results.filter((r) => r === 'added').length, 1);
      assert.deepEqual(await store.directory.findBlocked(accountId, entry.subscriber), {
        number: entry.number,
        createdAt: now,
      });
      assert.equal(await store.directory.unblockNumber(accountId, entry.subscriber), true);
      assert.equal(await store.directory.unblockNumber(accountId, entry.subscriber), false);
      assert.equal(await store.directory.findBlocked(accountId, entry.subscriber), null);
    });
  });
}
