/**
 * The sync summary of the Consents page, read from the counts migration 0036's triggers keep,
 * on both stores: after every kind of write (records added, a newer record over one synced,
 * records from İYS, the sync's outcomes, a hand-run update and delete) it says what counting
 * the table itself says, and the newest sync error among the records still owed to İYS.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';
import type { Consent } from '../../../src/domain/iys.js';

const consent = (recipient: string, date: number): Consent => ({
  recipient,
  recipientType: 'BIREYSEL',
  status: 'ONAY',
  source: 'HS_WEB',
  consentDate: date,
});
const numbers = Array.from({ length: 8 }, (_, i) => `90532000100${i}`);

for (const dialect of testDialects()) {
  describeOn(dialect, `consent sync counts (${dialect.name})`, () => {
    const suite = storeSuite(dialect);

    it('says what counting the table says, after every kind of write', async () => {
      const { store } = suite;
      const counted = async (accountId: number) => {
        const { rows } = await sql<{ sync_state: string; n: number | string }>`
          select sync_state, count(*) as n from iys_consents where account_id = ${accountId} group by sync_state`.execute(
          suite.handle.db,
        );
        const of = (state: string) => Number(rows.find((r) => r.sync_state === state)?.n ?? 0);
        return { pending: of('pending'), synced: of('synced'), failed: of('failed'), fromIys: of('from_iys') };
      };
      const agree = async (accountId: number, expected: Record<string, number>, lastError: string | null) => {
        const { lastError: error, ...summary } = await store.consents.syncSummary(accountId);
        assert.deepEqual(summary, await counted(accountId), 'the counts are the table');
        assert.deepEqual(summary, expected);
        assert.equal(error, lastError);
      };
      const account = await store.accounts.createAccount(accountInput('Counts'), now);
      const other = await store.accounts.createAccount(accountInput('Other'), now);
      await store.consents.record(other.id, [consent(numbers[0] as string, now - 9000)], now);

      await store.consents.record(
        account.id,
        numbers.slice(0, 6).map((n) => consent(n, now - 5000)),
        now,
      );
      await store.consents.record(account.id, [consent(numbers[6] as string, now - 5000)], now, 'iys');
      await agree(account.id, { pending: 6, synced: 0, failed: 0, fromIys: 1 }, null);

      const due = await store.consents.dueForSync(account.id, now, 10);
      assert.equal(due.length, 6);
      const [a, b, c, ...rest] = due;
      assert.ok(a && b && c);
      await store.consents.settleSync(
        account.id,
        [
          { consent: a, result: 'failed', error: 'refused: H174' },
          { consent: c, result: 'synced' },
          ...rest.map((r) => ({ consent: r, result: 'synced' as const })),
        ],
        now + 1,
      );
      await agree(account.id, { pending: 1, synced: 4, failed: 1, fromIys: 1 }, 'refused: H174');

      // A newer record over a synced one is owed to İYS again.
      await store.consents.record(account.id, [consent(c.recipient, now - 1000)], now + 2);
      await agree(account.id, { pending: 2, synced: 3, failed: 1, fromIys: 1 }, 'refused: H174');

      // Another writer's statements move the counts too.
      await sql`update iys_consents set sync_state = 'synced', sync_error = null
        where account_id = ${account.id} and sync_state = 'failed'`.execute(suite.handle.db);
      await agree(account.id, { pending: 2, synced: 4, failed: 0, fromIys: 1 }, null);
      await store.consents.settleSync(
        account.id,
        [{ consent: b, result: 'retry', error: 'İYS answered 503', dueAt: now + 60_000 }],
        now + 3,
      );
      await agree(account.id, { pending: 2, synced: 4, failed: 0, fromIys: 1 }, 'İYS answered 503');
      await sql`delete from iys_consents where account_id = ${account.id} and sync_state = 'from_iys'`.execute(
        suite.handle.db,
      );
      await agree(account.id, { pending: 2, synced: 4, failed: 0, fromIys: 0 }, 'İYS answered 503');
      await agree(other.id, { pending: 1, synced: 0, failed: 0, fromIys: 0 }, null);
    });
  });
}
