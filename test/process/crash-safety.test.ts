/**
 * The server is killed with SIGKILL while a large send is being dispatched and restarted on
 * the same store: no accepted message is lost, none is charged twice, and none is submitted
 * more than once beyond the documented bound (the dispatcher's in-flight window). A kill
 * during the first start's migrations leaves a store the next start opens.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { defaultDispatcherOptions } from '../../src/jobs/dispatcher.js';
import { migrationProvider } from '../../src/adapters/store/migrations/index.js';
import { admin, binPath, childEnv, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'haberci-crash-'));
const storeArgs = ['--data', dir];
const serveArgs = [
  ...storeArgs,
  '--sim-delay-ms',
  '0',
  '--lease-ms',
  '2000',
  '--demo',
  'false',
  '--requests-per-second',
  '0',
  '--log-level',
  'warn',
];

function count(db: BetterSqlite3.Database, sql: string): number {
  const row = db.prepare(sql).get() as { n: number } | undefined;
  return Number(row?.n ?? 0);
}

/** `waitFor` with this suite's argument order, naming the state it last saw on time-out. */
async function waitForState(
  check: () => boolean,
  timeoutMs: number,
  what: string,
  state: () => unknown = () => '',
): Promise<void> {
  try {
    await waitFor(what, check, { timeoutMs, intervalMs: 10 });
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${JSON.stringify(state())}`);
  }
}

describe('crash safety', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loses nothing, charges nothing twice and resubmits within the bound after SIGKILL mid-dispatch', async () => {
    const first = await startServer(serveArgs);
    const { accountId, apiKey } = await provisionSender(storeArgs, 'Crash', 100_000);

    const accepted: { smsId: number; recipients: number; sms: number }[] = [];
    const send = async (batch: number) => {
      const sentto = Array.from({ length: 500 }, (_, i) => `9053${String(batch).padStart(3, '0')}0${1000 + i}`).join(
        ',',
      );
      const answer = await postJson(`${first.url}/sms/send`, {
        api_key: apiKey,
        sentto,
        title: 'ACME',
        text: 'crash test',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024');
      accepted.push({
        smsId: Number(answer.body.sms_id),
        recipients: Number(answer.body.total_recipients),
        sms: Number(answer.body.number_of_sms),
      });
    };
    for (let b = 0; b < 40; b += 4) await Promise.all([b, b + 1, b + 2, b + 3].map(send));
    const total = accepted.reduce((s, a) => s + a.recipients, 0);
    assert.equal(total, 20_000);

    const db = new BetterSqlite3(join(dir, 'haberci.sqlite'), { readonly: true, fileMustExist: true });
    try {
      await waitForState(
        () => count(db, `SELECT count(*) n FROM messages WHERE state <> 'queued'`) >= 2000,
        30_000,
        'dispatch to start',
      );
      first.child.kill('SIGKILL');
      await first.exited;
      const doneBefore = count(db, `SELECT count(*) n FROM messages WHERE state = 'delivered'`);
      assert.ok(doneBefore < total, `killed while dispatching (${doneBefore} of ${total} delivered)`);

      const second = await startServer(serveArgs);
      try {
        await waitForState(
          () => count(db, `SELECT count(*) n FROM messages WHERE state = 'delivered'`) === total,
          60_000,
          'every message to be delivered after the restart',
          () => ({
            states: db.prepare('SELECT state, count(*) n, max(attempts) a FROM messages GROUP BY state').all(),
            unmatched: count(db, 'SELECT count(*) n FROM unmatched_reports'),
            log: second.output().slice(-2000),
          }),
        );
      } finally {
        second.child.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      }

      // Nothing accepted was lost: every answered send is stored whole.
      assert.equal(count(db, 'SELECT count(*) n FROM messages'), total);
      for (const a of accepted) assert.equal(count(db, `SELECT count(*) n FROM messages WHERE id = ${a.smsId}`), 1);
      // Charged exactly once per send, and the balance agrees with the ledger.
      assert.equal(
        count(
          db,
          `SELECT count(*) n FROM (SELECT reference FROM ledger WHERE reference LIKE 'send:%' GROUP BY reference HAVING count(*) > 1)`,
        ),
        0,
      );
      const charged = accepted.reduce((s, a) => s + a.sms, 0);
      assert.equal(count(db, `SELECT -sum(delta) n FROM ledger WHERE reference LIKE 'send:%'`), charged);
      assert.equal(count(db, `SELECT balance_main n FROM accounts WHERE id = ${accountId}`), 100_000 - charged);
      // Claimed (so possibly submitted) more than once only within the killed worker's in-flight window.
      const resubmitted = count(db, 'SELECT count(*) n FROM messages WHERE attempts > 1');
      assert.ok(resubmitted <= defaultDispatcherOptions.maxInFlight, `${resubmitted} messages claimed more than once`);
    } finally {
      db.close();
    }
  });

  it('loses nothing handed straight to the dispatcher when killed while single sends keep coming', async () => {
    const own = mkdtempSync(join(tmpdir(), 'haberci-crash-handoff-'));
    const args = ['--data', own, ...serveArgs.slice(2)];
    const first = await startServer(args);
    try {
      const { accountId, apiKey } = await provisionSender(['--data', own], 'Handoff', 100_000);
      const accepted: number[] = [];
      let stop = false;
      // 40 clients send one number each, one request after another, until the server dies.
      const client = async (c: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          try {
            const answer = await postJson(`${first.url}/sms/send`, {
              api_key: apiKey,
              sentto: `9053${String(c).padStart(2, '0')}${String(1000 + i).padStart(6, '0')}`,
              title: 'ACME',
              text: 'handoff',
              sms_lang: 0,
            });
            if (answer.body.result_code === 'TS-1024') accepted.push(Number(answer.body.sms_id));
          } catch {
            return;
          }
        }
      };
      const clients = Array.from({ length: 40 }, (_, c) => client(c));
      await waitForState(() => accepted.length >= 2_000, 60_000, 'sends to be accepted');
      first.child.kill('SIGKILL');
      await first.exited;
      stop = true;
      await Promise.all(clients);

      const db = new BetterSqlite3(join(own, 'haberci.sqlite'), { readonly: true, fileMustExist: true });
      try {
        const stored = count(db, 'SELECT count(*) n FROM messages');
        assert.ok(stored >= accepted.length, `${stored} stored, ${accepted.length} accepted`);
        const second = await startServer(args);
        try {
          await waitForState(
            () => count(db, `SELECT count(*) n FROM messages WHERE state = 'delivered'`) === stored,
            60_000,
            'every stored message to be delivered after the restart',
            () => db.prepare('SELECT state, count(*) n FROM messages GROUP BY state').all(),
          );
        } finally {
          second.child.kill('SIGTERM');
          assert.equal(await second.exited, 0);
        }
        for (const id of accepted)
          assert.equal(
            count(db, `SELECT count(*) n FROM messages WHERE id = ${id} AND state = 'delivered'`),
            1,
            `accepted message ${id} delivered`,
          );
        assert.equal(
          count(
            db,
            `SELECT count(*) n FROM (SELECT reference FROM ledger WHERE reference LIKE 'send:%' GROUP BY reference HAVING count(*) > 1)`,
          ),
          0,
          'no send charged twice',
        );
        assert.equal(
          count(db, `SELECT count(*) n FROM ledger WHERE reference LIKE 'send:%'`),
          count(db, 'SELECT count(*) n FROM sends'),
          'every stored send charged once',
        );
        assert.equal(
          count(db, `SELECT balance_main n FROM accounts WHERE id = ${accountId}`),
          100_000 + count(db, `SELECT sum(delta) n FROM ledger WHERE reference LIKE 'send:%'`),
        );
        const resubmitted = count(db, 'SELECT count(*) n FROM messages WHERE attempts > 1');
        assert.ok(
          resubmitted <= defaultDispatcherOptions.maxInFlight,
          `${resubmitted} messages claimed more than once`,
        );
      } finally {
        db.close();
      }
    } finally {
      first.child.kill('SIGKILL');
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('starts after SIGKILL during the first start, whatever the migrations had done', async () => {
    const own = mkdtempSync(join(tmpdir(), 'haberci-crash-migrate-'));
    try {
      const migrations = Object.keys(await migrationProvider('sqlite').getMigrations()).length;
      const left: number[] = [];
      // Killed a few milliseconds after the store file appears, as the migrations run: a
      // migration applied but not recorded made every later start fail.
      for (let round = 0; round < 6; round++) {
        const data = join(own, `r${round}`);
        const file = join(data, 'haberci.sqlite');
        const first = spawn(process.execPath, [binPath, 'admin', 'store', 'init', '--data', data], {
          env: childEnv(),
          stdio: 'ignore',
        });
        const exited = new Promise((res) => first.on('exit', res));
        await waitForState(() => existsSync(file) || first.exitCode !== null, 15_000, 'the store file');
        await new Promise((r) => setTimeout(r, round * 4));
        first.kill('SIGKILL');
        await exited;
        if (existsSync(file)) {
          // Read-write: a kill inside a transaction can leave a hot journal, which only a
          // writable connection rolls back (as the next start would).
          const db = new BetterSqlite3(file);
          try {
            const hasLog = count(db, `SELECT count(*) n FROM sqlite_master WHERE name = 'kysely_migration'`) === 1;
            left.push(hasLog ? count(db, 'SELECT count(*) n FROM kysely_migration') : 0);
          } finally {
            db.close();
          }
        }
        await admin(['store', 'init', '--data', data]);
        const again = await admin(['account', 'create', '--name', 'Again', '--data', data]);
        assert.equal(again.name, 'Again', `round ${round}`);
      }
      for (const n of left)
        assert.ok(n === 0 || n === migrations, `a kill left ${n} of ${migrations} migrations recorded`);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
