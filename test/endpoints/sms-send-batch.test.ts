/**
 * A send the store refuses fails alone inside the batch it shares (docs/decisions.md,
 * "Group commit"): when the batch's transaction fails, the others are written together in
 * one more transaction (each under a savepoint), not retried one transaction each. The refusal is a real one on every dialect: a trigger
 * that raises on inserting a send whose text is `POISON`.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import type { TestDialect } from '../helpers/dialects.js';
import { openConnection } from '../../src/adapters/store/open-store.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import type { Store } from '../../src/ports/store.js';

/** A file, not memory, on SQLite: the trigger is created through a second connection. */
async function locationOf(dialect: TestDialect, folder: string): Promise<StoreLocation> {
  return dialect.name === 'sqlite' ? { dialect: 'sqlite', file: join(folder, 'store.db') } : dialect.location();
}

async function poisonSends(location: StoreLocation): Promise<void> {
  const handle = openConnection(location);
  try {
    if (location.dialect === 'sqlite') {
      await sql`create trigger poison before insert on sends when new.text = 'POISON' begin select raise(abort, 'poisoned send'); end`.execute(
        handle.db,
      );
    } else {
      await sql`create function poison() returns trigger language plpgsql as $$ begin if new.text = 'POISON' then raise exception 'poisoned send'; end if; return new; end $$`.execute(
        handle.db,
      );
      await sql`create trigger poison before insert on sends for each row execute function poison()`.execute(handle.db);
    }
  } finally {
    await handle.close();
  }
}

interface Batch {
  /** Transactions after the first (the one held open), and those that failed as a whole. */
  counts: { made: number; failed: number };
  /** Resolves when the first transaction has begun its work, and is being held. */
  held: Promise<void>;
  /** Resolves when `senders` sender ID checks have been answered. */
  checked(senders: number): Promise<void>;
  release(): void;
}

/**
 * Holds the store's first transaction open, so that the requests sent meanwhile reach the
 * send writer together and form its next batch; counts the transactions after it. A request
 * reaches the writer in the microtasks after its sender ID check, its last store read.
 */
function holdFirstBatch(store: Store): Batch {
  const counts = { made: 0, failed: 0 };
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let markHeld = (): void => undefined;
  const held = new Promise<void>((resolve) => (markHeld = resolve));
  let first = true;
  const transaction = store.transaction.bind(store);
  store.transaction = async <T>(work: (s: Store) => Promise<T>): Promise<T> => {
    if (first) {
      first = false;
      return transaction(async (s) => {
        markHeld();
        await gate;
        return work(s);
      });
    }
    counts.made += 1;
    try {
      return await transaction(work);
    } catch (error) {
      counts.failed += 1;
      throw error;
    }
  };
  let answered = 0;
  const waiting: { senders: number; resolve: () => void }[] = [];
  const hasApprovedSender = store.senderIds.hasApprovedSender.bind(store.senderIds);
  store.senderIds.hasApprovedSender = async (accountId: number, title: string): Promise<boolean> => {
    const approved = await hasApprovedSender(accountId, title);
    answered += 1;
    for (const w of waiting.filter((x) => x.senders <= answered)) w.resolve();
    return approved;
  };
  const checked = (senders: number): Promise<void> =>
    new Promise<void>((resolve) => (answered >= senders ? resolve() : waiting.push({ senders, resolve })));
  return { counts, held, checked, release };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `/sms/send batch with a send the store refuses (${dialect.name})`, () => {
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

    it('fails that send alone: the others commit together in one more transaction, none is retried alone', async () => {
      const p = await harness().provision();
      const batch = holdFirstBatch(harness().runtime.store);
      // The third send carries an idempotency key: claimed once, in the transaction that commits.
      const body = (text: string, i: number) => ({
        api_key: p.apiKey,
        sentto: `90532123450${i}`,
        title: 'ACME',
        text,
        ...(i === 2 ? { idempotency_key: 'batch-2' } : {}),
      });
      const send = (text: string, i: number) => harness().post('/sms/send', body(text, i));
      const first = send('Hello', 9);
      await batch.held;
      const texts = ['Hello', 'Hello', 'Hello', 'Hello', 'POISON', 'Hello', 'Hello', 'Hello', 'Hello'];
      const pending = Promise.all(texts.map((text, i) => send(text, i)));
      await batch.checked(1 + texts.length);
      await new Promise((resolve) => setImmediate(resolve));
      batch.release();
      assert.equal((await first).body.result_code, 'TS-1024');
      const answers = await pending;

      answers.forEach((answer, i) => {
        if (texts[i] === 'POISON') {
          assert.equal(answer.status, 500, answer.raw);
          assert.equal(answer.body.result_code, 'SRV-ERR');
        } else {
          assert.equal(answer.body.result_code, 'TS-1024', answer.raw);
        }
      });
      // The batch's transaction, then one in which each send has a savepoint of its own.
      assert.deepEqual(
        batch.counts,
        { made: 2, failed: 1 },
        'the batch was written in two transactions, not one per send',
      );

      // The others are stored and charged; the refused one left nothing, its charge included.
      for (const [i, answer] of answers.entries()) {
        if (texts[i] === 'POISON') continue;
        const status = await harness().post('/sms/status', { api_key: p.apiKey, sms_id: answer.body.sms_id });
        assert.equal(status.body.result, true, status.raw);
      }
      const again = await send('Hello', 2);
      assert.equal(again.body.sms_id, answers[2]?.body.sms_id, again.raw);
      const balance = await harness().post('/balance/', { api_key: p.apiKey });
      assert.equal(balance.body.balance_main, 1000 - 9, balance.raw);
    });
  });
}
