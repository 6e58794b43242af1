/**
 * The consent store's reads for the panel's Consents page, on both stores: a number's
 * records with their sync state, an export's pages in key order, the RETs by reply (newest
 * first, one per recipient), and the account setting that makes text rules a refusal.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';
import type { Consent, ConsentStatus, RecipientType } from '../../../src/domain/iys.js';

const consent = (
  recipient: string,
  status: ConsentStatus,
  date: number,
  recipientType: RecipientType = 'BIREYSEL',
  source = 'HS_WEB',
): Consent => ({ recipient, recipientType, status, source, consentDate: date });

for (const dialect of testDialects()) {
  describeOn(dialect, `consent store, panel reads (${dialect.name})`, () => {
    const suite = storeSuite(dialect);

    it("reads a number's records of both types with their sync state, and no other account's", async () => {
      const { store } = suite;
      const account = await store.accounts.createAccount(accountInput('Panel consents'), now);
      const other = await store.accounts.createAccount(accountInput('Other'), now);
      await store.consents.record(
        account.id,
        [
          consent('905321110001', 'ONAY', now - 5000, 'TACIR'),
          consent('905321110001', 'RET', now - 4000, 'BIREYSEL'),
          consent('905321110002', 'ONAY', now - 4000),
        ],
        now,
      );
      await store.consents.record(other.id, [consent('905321110001', 'ONAY', now - 1000)], now);
      const [due] = await store.consents.dueForSync(account.id, now, 1);
      assert.ok(due);
      await store.consents.settleSync(account.id, [{ consent: due, result: 'failed', error: 'İYS: H174' }], now);

      const entries = await store.consents.entriesOf(account.id, '905321110001');
      assert.deepEqual(
        entries.map((e) => [e.recipientType, e.status, e.consentDate, e.source]),
        [
          ['BIREYSEL', 'RET', now - 4000, 'HS_WEB'],
          ['TACIR', 'ONAY', now - 5000, 'HS_WEB'],
        ],
      );
      const failed = entries.find((e) => e.syncState === 'failed');
      assert.ok(failed, 'the refused record says so');
      assert.equal(failed.syncError, 'İYS: H174');
      assert.ok(entries.every((e) => e.recordedAt === now));
      assert.deepEqual(await store.consents.entriesOf(account.id, '905329999999'), []);
      assert.equal((await store.consents.entriesOf(other.id, '905321110001')).length, 1);
    });

    it('pages every record of the account in key order, each once', async () => {
      const { store } = suite;
      const account = await store.accounts.createAccount(accountInput('Export consents'), now);
      const all: Consent[] = [];
      for (let i = 0; i < 7; i++) {
        all.push(consent(`90532222000${i}`, i % 3 === 0 ? 'RET' : 'ONAY', now - 100 * i));
        if (i % 2 === 0) all.push(consent(`90532222000${i}`, 'ONAY', now - 100 * i, 'TACIR'));
      }
      await store.consents.record(account.id, all, now);
      const seen: string[] = [];
      let after = null;
      for (;;) {
        const page = await store.consents.entriesAfter(account.id, after, 3);
        assert.ok(page.length <= 3);
        if (page.length === 0) break;
        seen.push(...page.map((e) => `${e.recipientType}|${e.recipient}`));
        const last = page[page.length - 1];
        assert.ok(last);
        after = { recipientType: last.recipientType, recipient: last.recipient };
      }
      const expected = all.map((c) => `${c.recipientType}|${c.recipient}`).sort();
      assert.deepEqual(seen, expected);
    });

    it('lists the RETs by reply in force, newest first, one per recipient', async () => {
      const { store } = suite;
      const account = await store.accounts.createAccount(accountInput('RET consents'), now);
      const byReply = (n: string, at: number): Consent[] => [
        consent(n, 'RET', at, 'BIREYSEL', 'HS_MESAJ'),
        consent(n, 'RET', at, 'TACIR', 'HS_MESAJ'),
      ];
      await store.consents.record(
        account.id,
        [
          ...byReply('905323330001', now - 3000),
          ...byReply('905323330002', now - 1000),
          ...byReply('905323330003', now - 2000),
          consent('905323330004', 'RET', now - 500, 'BIREYSEL', 'HS_WEB'),
        ],
        now,
      );
      // A later consent replaces one RET: it is no longer in force.
      await store.consents.record(account.id, [consent('905323330003', 'ONAY', now - 100)], now);
      const rets = await store.consents.retsByReply(account.id, 10);
      assert.deepEqual(
        rets.map((r) => r.recipient),
        ['905323330002', '905323330003', '905323330001'],
        'the TACIR RET of 905323330003 is still in force; the HS_WEB RET is no reply',
      );
      assert.deepEqual(
        (await store.consents.retsByReply(account.id, 2)).map((r) => r.recipient),
        ['905323330002', '905323330003'],
      );
    });

    it('keeps whether text rules refuse, and leaves it as it was when a patch does not say', async () => {
      const { store } = suite;
      const account = await store.accounts.createAccount(accountInput('Rules'), now);
      let s = await store.consents.saveSettings(account.id, { iysCode: '1', brandCode: '2' }, now);
      assert.equal(s.refuseTextRules, false);
      s = await store.consents.saveSettings(account.id, { iysCode: '1', brandCode: '2', refuseTextRules: true }, now);
      assert.equal(s.refuseTextRules, true);
      s = await store.consents.saveSettings(account.id, { iysCode: '1', brandCode: '3' }, now);
      assert.equal(s.refuseTextRules, true);
      assert.equal(s.brandCode, '3');
      s = await store.consents.saveSettings(account.id, { iysCode: '1', brandCode: '3', refuseTextRules: false }, now);
      assert.equal(s.refuseTextRules, false);
    });
  });
}
