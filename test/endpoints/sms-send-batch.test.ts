/**
 * A send the store refuses fails alone inside the batch it shares (docs/decisions.md,
 * "Group commit"): the others are answered and committed in that batch's one transaction,
 * not retried one transaction each. The refusal is a real one on every dialect: a trigger
 * that raises on inserting a send from the sender ID `POISON`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { testDialects } from '../helpers/dialects.js';
import type { TestDialect } from '../helpers/dialects.js';
import { openDb } from '../../src/adapters/store/database.js';
import type { StoreLocation } from '../../src/adapters/store/database.js';
import type { Store } from '../../src/ports/store.js';

/** A file, not memory, on SQLite: the trigger is created through a second connection. */
async function locationOf(dialect: TestDialect, folder: string): Promise<StoreLocation> {
  return dialect.name === 'sqlite' ? { dialect: 'sqlite', file: join(folder, 'store.db') } : dialect.location();
}

async function poisonSends(location: StoreLocation): Promise<void> {
  const handle = openDb(location);
  try {
    if (location.dialect === 'sqlite') {
      await sql`create trigger poison before insert on sends when new.sender = 'POISON' begin select raise(abort, 'poisoned send'); end`.execute(handle.db);
    } else {
      await sql`create function poison() returns trigger language plpgsql as $$ begin if new.sender = 'POISON' then raise exception 'poisoned send'; end if; return new; end $$`.execute(handle.db);
      await sql`create trigger poison before insert on sends for each row execute function poison()`.execute(handle.db);
    }
  } finally {
    await handle.close();
  }
}

/** Counts the store's transactions, and those that failed (rolled back as a whole). */
function countTransactions(store: Store): { made: number; failed: number } {
  const counts = { made: 0, failed: 0 };
  const original = store.transaction.bind(store);
  store.transaction = async <T>(work: (s: Store) => Promise<T>): Promise<T> => {
    counts.made += 1;
    try {
      return await original(work);
    } catch (error) {
      counts.failed += 1;
      throw error;
    }
  };
  return counts;
}

for (const dialect of testDialects()) {
  describe(`/sms/send batch with a send the store refuses (${dialect.name})`, dialect.skipReason === null ? {} : { skip: dialect.skipReason }, () => {
    let h: Harness | null = null;
    const folder = mkdtempSync(join(tmpdir(), 'haberci-batch-'));
    const harness = (): Harness => {
      if (!h) throw new Error('no harness');
      return h;
    };
    before(async () => {
      const location = await locationOf(dialect, folder);
      h = await createHarness(location);
      await poisonSends(location);
    });
    after(async () => {
      await h?.close();
      await dialect.cleanup();
      rmSync(folder, { recursive: true, force: true });
    });

    it('fails that send alone: the others commit in the same transaction, and no transaction is rolled back', async () => {
      const p = await harness().provision({ senderIds: [{ title: 'ACME' }, { title: 'POISON' }] });
      const counts = countTransactions(harness().runtime.store);
      const titles = ['ACME', 'ACME', 'ACME', 'ACME', 'POISON', 'ACME', 'ACME', 'ACME', 'ACME'];
      const answers = await Promise.all(titles.map((title, i) => harness().post('/sms/send', { api_key: p.apiKey, sentto: `90532123450${i}`, title, text: 'Hello' })));

      answers.forEach((answer, i) => {
        if (titles[i] === 'POISON') {
          assert.equal(answer.status, 500, answer.raw);
          assert.equal(answer.body.result_code, 'SRV-ERR');
        } else {
          assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
        }
      });
      assert.equal(counts.failed, 0, 'no transaction was rolled back as a whole');
      assert.ok(counts.made < titles.length, `the sends were not written one transaction each (${counts.made} transactions)`);

      // The others are stored and charged; the refused one left nothing, its charge included.
      for (const [i, answer] of answers.entries()) {
        if (titles[i] === 'POISON') continue;
        const status = await harness().post('/sms/status', { api_key: p.apiKey, sms_id: answer.body.sms_id });
        assert.equal(status.body.result, true, status.raw);
      }
      const balance = await harness().post('/balance/', { api_key: p.apiKey });
      assert.equal(balance.body.balance_main, 1000 - 8, balance.raw);
    });
  });
}
