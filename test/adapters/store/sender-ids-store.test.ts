/**
 * Sender IDs on every dialect: their order, one title per account, removal, and migration
 * 0012's folding of earlier duplicates.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.js';
import { storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';

for (const dialect of testDialects()) {
  describeOn(dialect, `store (${dialect.name})`, () => {
    const suite = storeSuite(dialect);
    const { freshLocation, open } = suite;
    let store: SqlStore;
    before(() => {
      ({ store } = suite);
    });

    describe('sender IDs', () => {
      it('approved sender IDs come newest first, by time then by record', async () => {
        const account = await store.accounts.createAccount(accountInput('Senders'), now);
        await store.senderIds.addSenderId(account.id, 'A', 'approved', now);
        await store.senderIds.addSenderId(account.id, 'B', 'approved', now + 1000);
        await store.senderIds.addSenderId(account.id, 'C', 'approved', now + 1000);
        await store.senderIds.addSenderId(account.id, 'P', 'pending', now + 2000);
        await store.senderIds.addSenderId(account.id, 'R', 'rejected', now + 3000);
        assert.deepEqual(
          (await store.senderIds.approvedSenderIds(account.id)).map((s) => s.title),
          ['C', 'B', 'A'],
        );
      });

      it('a title is one sender ID per account, case-sensitive: a second add gives null and changes nothing', async () => {
        const account = await store.accounts.createAccount(accountInput('Once'), now);
        const other = await store.accounts.createAccount(accountInput('Other'), now);
        const first = await store.senderIds.addSenderId(account.id, 'ONCE', 'pending', now);
        assert.equal(await store.senderIds.addSenderId(account.id, 'ONCE', 'approved', now + 1000), null);
        assert.equal((await store.senderIds.addSenderId(account.id, 'Once', 'approved', now))?.title, 'Once');
        assert.equal((await store.senderIds.addSenderId(other.id, 'ONCE', 'approved', now))?.accountId, other.id);
        assert.deepEqual(await store.senderIds.getSenderId(first?.id ?? 0), first);
        assert.deepEqual(
          (await store.senderIds.listOf(account.id)).map((s) => [s.title, s.status]),
          [
            ['ONCE', 'pending'],
            ['Once', 'approved'],
          ],
        );
      });

      it('a removed sender ID is gone, and its title can be added again', async () => {
        const account = await store.accounts.createAccount(accountInput('Removed'), now);
        const added = await store.senderIds.addSenderId(account.id, 'GONE', 'approved', now);
        assert.ok(added);
        assert.equal(await store.senderIds.hasApprovedSender(account.id, 'GONE'), true);
        assert.equal(await store.senderIds.removeSenderId(added.id), true);
        assert.equal(await store.senderIds.removeSenderId(added.id), false);
        assert.equal(await store.senderIds.getSenderId(added.id), null);
        assert.equal(await store.senderIds.hasApprovedSender(account.id, 'GONE'), false);
        assert.equal((await store.senderIds.addSenderId(account.id, 'GONE', 'pending', now))?.status, 'pending');
      });

      it('migration 0012 folds earlier duplicates into the row that decided sends: approved first, then the oldest', async () => {
        const at = await freshLocation(dialect);
        const h = open(at);
        const all = await migrationProvider(dialect.name).getMigrations();
        const before0012 = Object.fromEntries(Object.entries(all).filter(([name]) => name < '0012'));
        await migrate(h, { getMigrations: async () => before0012 });
        const old = storeOn(h);
        const account = await old.accounts.createAccount(accountInput('Duplicates'), now);
        const rows: [string, 'approved' | 'pending' | 'rejected'][] = [
          ['MIXED', 'pending'],
          ['MIXED', 'approved'],
          ['MIXED', 'approved'],
          ['MIXED', 'rejected'],
          ['WAITING', 'rejected'],
          ['WAITING', 'pending'],
          ['SINGLE', 'approved'],
        ];
        const ids: number[] = [];
        // As the store wrote them before the unique index (addSenderId now relies on it).
        for (const [title, status] of rows) {
          const row = await h.db
            .insertInto('sender_ids')
            .values({ account_id: account.id, title, status, created_at: now })
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(row.id);
        }
        await migrate(h);
        assert.deepEqual(
          (await storeOn(h).senderIds.listOf(account.id)).map((s) => [s.id, s.title, s.status]),
          [
            [ids[1], 'MIXED', 'approved'],
            [ids[4], 'WAITING', 'rejected'],
            [ids[6], 'SINGLE', 'approved'],
          ],
        );
      });
    });
  });
}
