/**
 * A refund is written in the transaction of the receipt that earns it (docs/resellers.md,
 * "Refunds"): a real `serve` on each store, with the account's refund policy on, takes
 * single sends over HTTP (the simulator fails numbers ending 0000, expires those ending
 * 0001, delivers the others) and is killed with SIGKILL right after the last answer, while
 * its submits and receipts are under way. Restarted on the same store, every failed and
 * expired message is refunded exactly once: the balance is the opening credit minus the
 * sends plus one SMS per undelivered message, the month's statement (from the ledger) says
 * the same, and it stays so after another restart.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

const opening = 1000;

interface Figures {
  balance: number;
  refunded: number;
  spent: number;
  closing: number;
  states: Record<string, number>;
}

async function figuresOf(storeArgs: string[], accountId: string): Promise<Figures> {
  const month = new Date().toISOString().slice(0, 7);
  const [shown, statement] = await Promise.all([
    admin(['account', 'show', '--id', accountId, ...storeArgs]),
    // A month boundary between the sends and now is too unlikely to guard against here.
    admin(['account', 'statement', '--id', accountId, '--month', month, ...storeArgs]),
  ]);
  const main = (statement.credit as { main: Record<string, number> }).main;
  const byState = (statement.messages as { by_state: Record<string, { messages: number }> }).by_state;
  return {
    balance: Number(shown.balance_main),
    refunded: main.refunded ?? -1,
    spent: main.spent ?? -1,
    closing: main.closing ?? -1,
    states: Object.fromEntries(Object.entries(byState).map(([state, v]) => [state, v.messages])),
  };
}

async function scenario(storeArgs: string[]): Promise<void> {
  const base = ['--demo', 'false', '--sim-delay-ms', '0', '--lease-ms', '2000', '--requests-per-second', '0'];
  const servers: ServerProcess[] = [];
  try {
    const first = await startServer([...base, ...storeArgs]);
    servers.push(first);
    const sender = await provisionSender(storeArgs, 'Refunds', opening);
    await admin(['account', 'update', '--id', sender.accountId, '--refund-undelivered', 'true', ...storeArgs]);
    const endings = ['0000', '0001', '1234', '5678'];
    const numbers = Array.from({ length: 120 }, (_, i) => `90532${String(i).padStart(3, '0')}${endings[i % 4]}`);
    const single = async (to: string): Promise<void> => {
      const answer = await postJson(`${first.url}/sms/send`, {
        api_key: sender.apiKey,
        title: 'ACME',
        sentto: to,
        text: 'refunds',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    };
    for (let i = 0; i < numbers.length; i += 12) await Promise.all(numbers.slice(i, i + 12).map(single));
    // Killed at once: submits and receipts (and their refunds) are cut wherever they are.
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServer([...base, ...storeArgs]);
    servers.push(second);
    const undelivered = numbers.filter((n) => n.endsWith('0000') || n.endsWith('0001')).length;
    const expected: Figures = {
      balance: opening - numbers.length + undelivered,
      refunded: undelivered,
      spent: numbers.length,
      closing: opening - numbers.length + undelivered,
      states: { delivered: numbers.length / 2, expired: numbers.length / 4, failed: numbers.length / 4 },
    };
    const seen = { last: null as Figures | null };
    await waitFor(
      `every message settled and refunded once: ${JSON.stringify(expected)} (last seen ${JSON.stringify(seen.last)})`,
      async () => {
        seen.last = await figuresOf(storeArgs, sender.accountId);
        // Never more than once, at every poll.
        assert.ok(seen.last.refunded <= undelivered, JSON.stringify(seen.last));
        return JSON.stringify(seen.last) === JSON.stringify(expected);
      },
      { timeoutMs: 60_000, intervalMs: 300 },
    );
    // Stopped and started again: the figures stay exactly where they are.
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    const third = await startServer([...base, ...storeArgs]);
    servers.push(third);
    assert.deepEqual(await figuresOf(storeArgs, sender.accountId), expected);
  } finally {
    for (const s of servers) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  }
}

describe('refunds of undelivered messages through a crash', { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('SQLite: after SIGKILL and a restart each failed or expired message is refunded exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-refunds-crash-'));
    dirs.push(dir);
    await scenario(['--data', dir]);
  });

  const schema = schemaForSuite();
  it(
    'PostgreSQL: the same',
    {
      skip:
        postgresUrl() === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false,
    },
    async () => {
      await scenario(['--database', schema.url]);
    },
  );
});
