/**
 * Refunds the provider decides, and statements (issue 46, items 5 and 6; docs/resellers.md),
 * through HTTP and the admin CLI on every dialect: off by default; with the policy on, a
 * message that ends failed or expired by a receipt, or rejected at submit, gets its credit
 * back exactly once (a receipt applied twice, a failed receipt followed by others, a cancel
 * after it), a ledger row with its reason, `refunded` in /reports/detailed; a reseller's
 * customers as the reseller's policy and the provider's decide; and the monthly statement
 * equal to the ledger, as JSON and as CSV with formula cells neutralised.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness, Provisioned } from '../helpers/harness.js';
import { describeOn, schemaUrl, testDialects } from '../helpers/dialects.js';
import type { TestDialect } from '../helpers/dialects.js';
import { simulatedDelivery } from '../helpers/delivery.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { assertBulkAccepted, detailedOf, drain, groupSend, reportDetailed } from '../helpers/bulk.js';
import { adminOk } from '../helpers/cli.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import type { ReceiptStatus } from '../../src/ports/carrier.js';
import type { LedgerEntry } from '../../src/ports/console-queries.js';
import { valueOf } from '../helpers/results.js';

/** A store both the harness and the in-process CLI reach: a SQLite folder, or a PostgreSQL schema. */
async function sharedStore(dialect: TestDialect): Promise<{ location: StoreLocation; args: string[]; dir: string }> {
  if (dialect.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-refunds-'));
    return { location: { dialect: 'sqlite', file: sqliteFileIn(dir) }, args: ['--data', dir], dir };
  }
  const location = await dialect.location();
  if (location.dialect !== 'postgres' || location.schema === undefined) throw new Error('a schema of its own');
  return {
    location,
    args: ['--database', schemaUrl(location.schema)],
    dir: mkdtempSync(join(tmpdir(), 'haberci-refunds-')),
  };
}

/** Recipients ending 0009 are refused by the operator at submit. */
const rejected = '905330000009';

for (const dialect of testDialects()) {
  describeOn(dialect, `refunds of undelivered messages and statements (${dialect.name})`, () => {
    let h: Harness;
    let args: string[];
    let dir: string;
    let live: RecordingCarrier;
    let delivery: Awaited<ReturnType<typeof simulatedDelivery>>;
    before(async () => {
      const shared = await sharedStore(dialect);
      args = shared.args;
      dir = shared.dir;
      h = await createHarness(shared.location);
      live = new RecordingCarrier('live', (m) =>
        m.to === rejected
          ? { kind: 'rejected', reason: 'unknown subscriber' }
          : { kind: 'accepted', carrierMessageIds: [`c-${m.messageId}`] },
      );
      delivery = await simulatedDelivery(h.runtime, { live });
    });
    after(async () => {
      await delivery.stop();
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const balance = async (p: Provisioned): Promise<number> =>
      Number((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main);
    const ledger = async (accountId: number): Promise<LedgerEntry[]> =>
      (await h.runtime.store.console.ledger(accountId, undefined, 1000)).reverse();
    const refundRows = async (accountId: number) =>
      (await ledger(accountId))
        .filter((r) => r.reason.startsWith('refund'))
        .map((r) => ({ delta: r.delta, reason: r.reason, reference: r.reference }));
    /** Sends to `numbers` in one bulk send and submits it; the message id of each number. */
    const sendAndSubmit = async (p: Provisioned, numbers: string[]): Promise<{ raporId: number; ids: number[] }> => {
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: numbers }));
      await drain(delivery);
      const ids = numbers.map(
        (n) => [...live.submitted].reverse().find((m) => m.to === n)?.messageId ?? assert.fail(`${n} not submitted`),
      );
      return { raporId: sent.raporId, ids };
    };
    const receipts = (...items: [number, ReceiptStatus][]) =>
      h.runtime.store.queue.applyReceipts(
        items.map(([id, status]) => ({ carrierMessageId: `c-${id}`, status })),
        h.clock.now(),
      );
    const refundedOf = async (p: Provisioned, raporId: number): Promise<Record<string, number | undefined>> => {
      const rows = detailedOf(await reportDetailed(h, p.apiKey, raporId)).data as unknown as {
        phone_number: string;
        refunded?: number;
      }[];
      return Object.fromEntries(rows.map((r) => [r.phone_number, r.refunded]));
    };

    it('off by default: a failed message keeps its charge, no refund row, no refunded field', async () => {
      const p = await h.provision();
      const { raporId, ids } = await sendAndSubmit(p, ['905320000001']);
      await receipts([ids[0] ?? 0, 'failed']);
      assert.equal(await balance(p), 999);
      assert.deepEqual(await refundRows(p.accountId), []);
      assert.deepEqual(await refundedOf(p, raporId), { '905320000001': undefined });
      const shown = await adminOk(['account', 'show', '--id', String(p.accountId), ...args]);
      assert.equal(shown.refund_undelivered, false);
    });

    it('on: failed, expired and rejected messages get their credit back exactly once each, delivered ones not', async () => {
      const p = await h.provision();
      const updated = await adminOk([
        'account',
        'update',
        '--id',
        String(p.accountId),
        '--refund-undelivered',
        'true',
        ...args,
      ]);
      assert.equal(updated.refund_undelivered, true);
      const numbers = ['905320000011', '905320000012', '905320000013', rejected];
      const sent = assertBulkAccepted(await groupSend(h, p.apiKey, { sentto: numbers }));
      await drain(delivery);
      assert.equal(await balance(p), 1000 - 4 + 1, 'the rejected submit is refunded at once');
      const id = (n: string) => live.submitted.find((m) => m.to === n)?.messageId ?? 0;
      const [failed, expired, delivered] = [id('905320000011'), id('905320000012'), id('905320000013')];
      // The same failed receipt twice in one batch, then again, then a contradicting one.
      await receipts([failed, 'failed'], [failed, 'failed'], [expired, 'expired'], [delivered, 'delivered']);
      await receipts([failed, 'failed'], [expired, 'expired']);
      await receipts([failed, 'delivered'], [delivered, 'failed']);
      // A cancel of the send afterwards finds nothing left to give back.
      const cancel = await h.post('/group/cancel', { api_key: p.apiKey, rapor_id: sent.raporId });
      assert.equal(cancel.body.refunded, 0, cancel.raw);
      assert.equal(await balance(p), 1000 - 4 + 3);
      assert.deepEqual(
        (await refundRows(p.accountId)).sort((a, b) => a.reason.localeCompare(b.reason)),
        [
          { delta: 1, reason: 'refund: expired', reference: `message:${expired}` },
          { delta: 1, reason: 'refund: failed', reference: `message:${failed}` },
          { delta: 1, reason: 'refund: rejected', reference: `message:${id(rejected)}` },
        ],
      );
      assert.deepEqual(await refundedOf(p, sent.raporId), {
        '905320000011': 1,
        '905320000012': 1,
        '905320000013': undefined,
        [rejected]: 1,
      });
      // Turned off again: the next failure keeps its charge.
      await adminOk(['account', 'update', '--id', String(p.accountId), '--refund-undelivered', 'false', ...args]);
      const again = await sendAndSubmit(p, ['905320000014']);
      await receipts([again.ids[0] ?? 0, 'failed']);
      assert.equal(await balance(p), 1000 - 5 + 3);
    });

    it('the same receipts applied by three transactions at once refund each message once', async () => {
      const p = await h.provision();
      await valueOf(h.runtime.admin.updateAccount(p.accountId, { refundUndelivered: true }, {}));
      const numbers = Array.from({ length: 20 }, (_, i) => `9053200001${String(i).padStart(2, '0')}`);
      const { raporId, ids } = await sendAndSubmit(p, numbers);
      const all = ids.map((id): [number, ReceiptStatus] => [id, 'failed']);
      // On PostgreSQL three connections of the pool, in different orders; SQLite takes them in turn.
      await Promise.all([receipts(...all), receipts(...[...all].reverse()), receipts(...all.slice(5), ...all)]);
      assert.equal(await balance(p), 1000);
      const rows = await refundRows(p.accountId);
      assert.equal(
        rows.reduce((n, r) => n + r.delta, 0),
        20,
        JSON.stringify(rows),
      );
      assert.ok(Object.values(await refundedOf(p, raporId)).every((n) => n === 1));
    });

    describe('a reseller and its customers', () => {
      let reseller: Provisioned;
      let passedOn: Provisioned;
      let kept: Provisioned;
      let other: Provisioned;
      before(async () => {
        reseller = await h.provision({ account: { name: 'Bayi', balanceMain: 1000 } });
        await adminOk(['account', 'update', '--id', String(reseller.accountId), '--reseller', 'true', ...args]);
        passedOn = await h.provision({ account: { name: '=HYPERLINK("x")', parentId: reseller.accountId } });
        kept = await h.provision({ account: { name: 'Kept', parentId: reseller.accountId } });
        other = await h.provision({ account: { name: 'Other reseller' } });
        await adminOk(['account', 'update', '--id', String(other.accountId), '--reseller', 'true', ...args]);
      });
      const update = (by: Provisioned, fields: Record<string, unknown>): Promise<Answer> =>
        h.post('/subaccounts/update', { api_key: by.apiKey, ...fields });

      it('/subaccounts/update sets a customer policy; another reseller or a bad flag is refused', async () => {
        const set = await update(reseller, { account_id: passedOn.accountId, refund_undelivered: 1 });
        assert.equal(set.status, 200, set.raw);
        assert.equal(set.body.refund_undelivered, true);
        assert.equal(set.body.account_id, passedOn.accountId);
        const foreign = await update(other, { account_id: passedOn.accountId, refund_undelivered: 0 });
        assert.deepEqual([foreign.status, foreign.body.result_code], [403, 'TS-1170']);
        const bad = await update(reseller, { account_id: passedOn.accountId, refund_undelivered: 2 });
        assert.deepEqual([bad.status, bad.body.result_code], [400, 'TS-1033']);
        const shown = await adminOk(['account', 'show', '--id', String(passedOn.accountId), ...args]);
        assert.equal(shown.refund_undelivered, true);
        const audit = await h.runtime.audit.search({ accountId: passedOn.accountId });
        assert.ok(
          audit.entries.some((e) => e.action === 'subaccount.refund-policy' && e.actor === `key:${reseller.keyId}`),
          JSON.stringify(audit.entries.map((e) => e.action)),
        );
      });

      it('without the provider refunding the reseller, no customer is refunded', async () => {
        const a = await sendAndSubmit(passedOn, ['905320000021']);
        await receipts([a.ids[0] ?? 0, 'failed']);
        assert.deepEqual([await balance(passedOn), await balance(reseller)], [999, 1000]);
      });

      it('with it: passed on to the customer whose policy says so, kept by the reseller otherwise', async () => {
        await adminOk([
          'account',
          'update',
          '--id',
          String(reseller.accountId),
          '--refund-undelivered',
          'true',
          ...args,
        ]);
        const a = await sendAndSubmit(passedOn, ['905320000022']);
        const b = await sendAndSubmit(kept, ['905320000023']);
        await receipts([a.ids[0] ?? 0, 'failed'], [b.ids[0] ?? 0, 'expired']);
        await receipts([a.ids[0] ?? 0, 'failed'], [b.ids[0] ?? 0, 'expired']);
        assert.deepEqual(
          [await balance(passedOn), await balance(kept), await balance(reseller)],
          [1000 - 2 + 1, 999, 1001],
        );
        assert.deepEqual(await refundRows(reseller.accountId), [
          { delta: 1, reason: "refund: expired, a customer's message", reference: `message:${b.ids[0] ?? 0}` },
        ]);
        assert.deepEqual(await refundedOf(passedOn, a.raporId), { '905320000022': 1 });
        assert.deepEqual(await refundedOf(kept, b.raporId), { '905320000023': undefined });
      });

      it('statements equal the ledger to the unit, per account and for a reseller with its customers, and as CSV', async () => {
        await h.post('/subaccounts/fund', { api_key: reseller.apiKey, account_id: kept.accountId, amount: 50 });
        await h.post('/subaccounts/fund', { api_key: reseller.apiKey, account_id: kept.accountId, amount: -20 });
        const csv = join(dir, 'statement.csv');
        const statement = await adminOk([
          'account',
          'statement',
          '--id',
          String(reseller.accountId),
          '--month',
          '2026-03',
          '--customers',
          '--csv',
          csv,
          ...args,
        ]);
        type Credit = Record<
          'opening' | 'added' | 'spent' | 'refunded' | 'moved_in' | 'moved_out' | 'taken' | 'closing',
          number
        >;
        type One = {
          account_id: number;
          messages: { total: number; by_state: Record<string, { messages: number; sms: number }> };
          credit: { main: Credit; international: Credit };
        };
        const all = [statement as unknown as One, ...((statement.customers ?? []) as One[])];
        assert.deepEqual(
          all.map((s) => s.account_id),
          [reseller.accountId, passedOn.accountId, kept.accountId],
        );
        for (const s of all) {
          const rows = (await ledger(s.account_id)).filter((r) => r.bucket === 'main');
          const sum = (keep: (r: LedgerEntry) => boolean) => rows.filter(keep).reduce((n, r) => n + r.delta, 0);
          const c = s.credit.main;
          assert.equal(c.opening, 0);
          assert.equal(
            c.closing,
            sum(() => true),
            `closing of ${s.account_id}`,
          );
          assert.equal(c.closing, rows[rows.length - 1]?.balanceAfter ?? 0);
          assert.equal(c.spent, 0 - sum((r) => r.reason.endsWith(' send')));
          assert.equal(
            c.refunded,
            sum((r) => r.reason.startsWith('refund')),
          );
          assert.equal(
            c.moved_in - c.moved_out,
            sum((r) => /^(funding|funded|taken back)/.test(r.reason)),
          );
          assert.equal(c.opening + c.added + c.refunded + c.moved_in - c.spent - c.moved_out - c.taken, c.closing);
          const [bal] = [(await h.runtime.store.accounts.getAccount(s.account_id))?.balanceMain];
          assert.equal(c.closing, bal);
        }
        const [own, customerA, customerB] = all;
        assert.deepEqual(own?.credit.main, {
          opening: 0,
          added: 1000,
          spent: 0,
          refunded: 1,
          moved_in: 20,
          moved_out: 50,
          taken: 0,
          closing: 971,
        });
        assert.deepEqual(customerA?.messages.by_state, { failed: { messages: 2, sms: 2 } });
        assert.equal(customerA?.credit.main.refunded, 1);
        assert.deepEqual(customerB?.messages.by_state, { expired: { messages: 1, sms: 1 } });
        assert.deepEqual([customerB?.credit.main.moved_in, customerB?.credit.main.moved_out], [50, 20]);
        const text = readFileSync(csv, 'utf8');
        const lines = text
          .replace(/^\uFEFF/, '')
          .trimEnd()
          .split('\n');
        assert.equal(lines.length, 1 + 3 * 2, text);
        assert.match(lines[0] ?? '', /^account_id,name,parent_id,month,balance,messages,sms,/);
        assert.ok(
          lines.some((l) =>
            l.startsWith(`${passedOn.accountId},"'=HYPERLINK(""x"")",${reseller.accountId},2026-03,main,`),
          ),
          text,
        );
        assert.ok(!/(^|,)"?=/.test(text.split('\n').slice(1).join('\n')), 'no cell starts a formula');
      });

      it('a statement of a month without rows is all zeros, with the opening carried in', async () => {
        const s = await adminOk([
          'account',
          'statement',
          '--id',
          String(kept.accountId),
          '--month',
          '2026-04',
          ...args,
        ]);
        const main = (s.credit as { main: Record<string, number> }).main;
        assert.equal(main.opening, await balance(kept));
        assert.equal(main.closing, main.opening);
        assert.deepEqual(s.messages, { total: 0, sms: 0, by_state: {} });
      });
    });
  });
}
