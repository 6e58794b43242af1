/**
 * Credit flows down, never out of nothing (issue 46, item 2): hundreds of concurrent funds,
 * take-backs and sends (/subaccounts/fund and /sms/send) across three harnesses on one
 * store (three connections, as three processes would be), on every dialect. Afterwards no balance is below zero, every
 * account's balance is the sum of its ledger rows, and the hierarchy holds exactly what the
 * provider put in minus what the accepted sends were charged.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness, Provisioned } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

/** A small deterministic generator: the same interleaving of kinds on every run. */
function generator(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

const opening = { main: 600, international: 90 };

for (const dialect of testDialects()) {
  describeOn(dialect, `reseller funding races (${dialect.name})`, () => {
    let folder = '';
    let hs: Harness[] = [];
    let reseller: Provisioned;
    let customers: Provisioned[] = [];
    before(async () => {
      folder = mkdtempSync(join(tmpdir(), 'haberci-reseller-race-'));
      const location =
        dialect.name === 'sqlite'
          ? { dialect: 'sqlite' as const, file: join(folder, 'store.db') }
          : await dialect.location();
      const first = await createHarness(location);
      hs = [first, await createHarness(location), await createHarness(location)];
      reseller = await first.provision({
        account: { name: 'Bayi', balanceMain: opening.main, balanceInternational: opening.international },
      });
      await valueOf(first.runtime.admin.updateAccount(reseller.accountId, { reseller: true }, {}));
      customers = [];
      for (const name of ['One', 'Two'])
        customers.push(
          await first.provision({
            account: { name, balanceMain: 0, balanceInternational: 0, parentId: reseller.accountId },
          }),
        );
    });
    after(async () => {
      for (const h of hs.reverse()) await h.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('funds, take-backs and sends at once: nothing below zero, nothing created or lost', async () => {
      const next = generator(46);
      let moved = 0;
      let refused = 0;
      let sent = 0;
      const operation = async (i: number): Promise<void> => {
        const h = hs[i % hs.length] ?? assert.fail('no harness');
        const customer = customers[Math.floor(next() * customers.length)] ?? assert.fail('no customer');
        const roll = next();
        if (roll < 0.55) {
          const amount = (1 + Math.floor(next() * 20)) * (next() < 0.6 ? 1 : -1);
          const international = next() < 0.3;
          const answer = await h.post('/subaccounts/fund', {
            api_key: reseller.apiKey,
            account_id: customer.accountId,
            amount,
            international: international ? 1 : 0,
          });
          if (answer.body.result_code === 'TS-1064') moved += 1;
          else {
            assert.equal(answer.body.result_code, 'TS-1027', answer.raw);
            refused += 1;
          }
          return;
        }
        // Sends from a customer (or, one in four, the reseller itself): one SMS each.
        const sender = roll < 0.9 ? customer : reseller;
        const answer = await h.post('/sms/send', {
          api_key: sender.apiKey,
          sentto: `90532${String(1_000_000 + i).padStart(7, '0')}`,
          title: 'ACME',
          text: 'Merhaba',
          sms_lang: 0,
        });
        if (answer.body.result_code === 'TS-1024') sent += 1;
        else assert.equal(answer.body.result_code, 'TS-1027', answer.raw);
      };
      // 300 operations, 48 in flight at any moment (16 a harness): as many as the stores'
      // connection pools serve without a request waiting past its bound for a connection.
      let taken = 0;
      await Promise.all(
        Array.from({ length: 48 }, async () => {
          while (taken < 300) await operation(taken++);
        }),
      );
      assert.ok(moved > 50 && refused > 0 && sent > 50, `moved ${moved}, refused ${refused}, sent ${sent}`);

      const store = hs[0]?.runtime.store ?? assert.fail('no store');
      const ids = [reseller.accountId, ...customers.map((c) => c.accountId)];
      const held = { main: 0, international: 0 };
      let spent = 0;
      for (const id of ids) {
        const account = (await store.accounts.getAccount(id)) ?? assert.fail(`account ${id}`);
        assert.ok(account.balanceMain >= 0 && account.balanceInternational >= 0, `account ${id}`);
        held.main += account.balanceMain;
        held.international += account.balanceInternational;
        // Each balance is its ledger's sum, row by row.
        const sums = await store.accounts.ledgerSums(id, 0, Number.MAX_SAFE_INTEGER);
        const net = { main: 0, international: 0 };
        for (const s of sums) {
          net[s.bucket] += s.added - s.taken;
          if (s.reason.endsWith(' send')) spent += s.taken;
        }
        assert.deepEqual(net, { main: account.balanceMain, international: account.balanceInternational });
      }
      // Every accepted send was charged one SMS, and nothing else left the hierarchy.
      assert.equal(spent, sent);
      assert.deepEqual(held, { main: opening.main - sent, international: opening.international });
    });
  });
}
