/**
 * The consent index in memory of a commercial send's filter, on both stores: it answers what
 * the table holds, is loaded again when any writer (here a hand-run statement) changes a
 * consent (migration 0028's triggers), reads in pages, and gives way to the table's probe for
 * an account larger than its bound. A sync outcome does not move the account's version.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';
import type { Consent, ConsentMarks } from '../../../src/domain/iys.js';

const consent = (recipient: string, status: 'ONAY' | 'RET', date = now - 1000): Consent => ({
  recipient,
  recipientType: 'BIREYSEL',
  status,
  source: 'HS_WEB',
  consentDate: date,
});
/** The marks as words, in the order asked (0 none, 1 ONAY, 2 RET). */
const words = (marks: ConsentMarks): string[] => [...marks].map((m) => ['NONE', 'ONAY', 'RET'][m] ?? '?');
/** How many of the recipients asked have a consent of the type. */
const held = (marks: ConsentMarks): number => [...marks].filter((m) => m !== 0).length;
const numbers = ['905320000001', '905320000002', '905320000003', '905320000004', '905320000005'];

for (const dialect of testDialects()) {
  describeOn(dialect, `consent index (${dialect.name})`, () => {
    const suite = storeSuite(dialect);
    const version = async (accountId: number): Promise<string> => {
      const { rows } = await sql<{
        n: number | string;
      }>`select n from iys_consent_versions where account_id = ${accountId}`.execute(suite.handle.db);
      return String(rows[0]?.n);
    };

    it('answers from memory what the table holds, and loads again after any write to a consent', async () => {
      const { store } = suite;
      // Twice: the first send at a new version probes the table, the second loads the index.
      const twice = async (accountId: number, asked: readonly string[]) => {
        const probed = await store.consents.statusesOf(accountId, 'BIREYSEL', asked);
        const indexed = await store.consents.statusesOf(accountId, 'BIREYSEL', asked);
        assert.deepEqual(indexed, probed);
        return indexed;
      };
      const account = await store.accounts.createAccount(accountInput('Index'), now);
      await store.consents.record(
        account.id,
        numbers.map((n, i) => consent(n, i % 2 === 0 ? 'ONAY' : 'RET')),
        now,
      );
      const index = store.consents.indexWith({ minRecipients: 1, pageSize: 2 });
      const asked = [...numbers, '905329999999'];
      const probed = await store.consents.statusesOf(account.id, 'BIREYSEL', asked);
      assert.equal(index.size, 0, 'the first send at a version probes the table');
      const first = await store.consents.statusesOf(account.id, 'BIREYSEL', asked);
      assert.deepEqual(first, probed);
      assert.deepEqual(words(first), ['ONAY', 'RET', 'ONAY', 'RET', 'ONAY', 'NONE']);
      assert.equal(index.size, 5, 'the second loads, in pages of two');
      assert.equal(held(await store.consents.statusesOf(account.id, 'TACIR', asked)), 0, 'the other type apart');

      // A sync outcome leaves the version alone; a statement of another writer moves it.
      const before = await version(account.id);
      const [due] = await store.consents.dueForSync(account.id, now, 1);
      assert.ok(due);
      await store.consents.settleSync(account.id, [{ consent: due, result: 'synced' }], now);
      assert.equal(await version(account.id), before);
      await sql`update iys_consents set status = 'RET' where recipient = ${numbers[0]}`.execute(suite.handle.db);
      assert.notEqual(await version(account.id), before);
      const after = await twice(account.id, asked);
      assert.equal(words(after)[0], 'RET', 'the hand-run change is seen');
      assert.equal(index.size, 5);
      // A newer record over one in force (the upsert of record()) moves it too.
      await store.consents.record(account.id, [consent(numbers[2] as string, 'RET', now)], now);
      assert.equal(words(await twice(account.id, asked))[2], 'RET');
      await sql`delete from iys_consents where recipient = ${numbers[1]}`.execute(suite.handle.db);
      assert.equal(words(await twice(account.id, asked))[1], 'NONE');
      assert.equal(index.size, 4, 'loaded again without the deleted one');
    });

    it('probes the table for an account larger than its bound, and for small sends', async () => {
      const { store } = suite;
      const account = await store.accounts.createAccount(accountInput('Large'), now);
      await store.consents.record(
        account.id,
        numbers.map((n) => consent(n, 'ONAY')),
        now,
      );
      const bounded = store.consents.indexWith({ minRecipients: 1, maxNumbers: 3, pageSize: 2 });
      await store.consents.statusesOf(account.id, 'BIREYSEL', numbers);
      const got = await store.consents.statusesOf(account.id, 'BIREYSEL', numbers);
      assert.equal(held(got), 5);
      assert.equal(bounded.size, 0, 'nothing kept');
      const small = store.consents.indexWith({ minRecipients: 100 });
      assert.equal(held(await store.consents.statusesOf(account.id, 'BIREYSEL', numbers)), 5);
      assert.equal(small.size, 0, 'not loaded for a small send');
    });
  });
}
