/**
 * The lookup caches on PostgreSQL (issue 24): `serve` keeps keys, accounts and balances in
 * memory, and what another process commits (the admin CLI here) empties them through
 * LISTEN/NOTIFY; while the listening connection is away nothing is cached. Real processes,
 * real HTTP.
 *
 * A write made with `session_replication_role = replica` fires no trigger, so sends no
 * notification: the test's way to see whether an answer came from the cache.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { pause, waitFor } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;
/** How long a notification may take to reach the other process. */
const heardWithinMs = 2000;

async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  withinMs = heardWithinMs,
): Promise<T> {
  let last: T | undefined;
  try {
    const found = await waitFor(
      what,
      async () => {
        last = await read();
        return done(last) ? { value: last } : undefined;
      },
      { timeoutMs: withinMs, intervalMs: 10 },
    );
    return found.value;
  } catch {
    assert.fail(`${what}: still ${JSON.stringify(last)} after ${withinMs} ms`);
  }
}

describe('lookup caches on PostgreSQL', () => {
  const servers: ServerProcess[] = [];
  // Before the schema's own after(): the processes go first, then their schema.
  after(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
  });
  // Named, so the test ends only its own processes' connections, not other suites'.
  const schema = schemaForSuite({ named: true });
  let store: string[] = [];
  let cached: ServerProcess;
  let uncached: ServerProcess;
  let sender: ProvisionedSender;

  before(async () => {
    if (skip) return;
    store = ['--database', schema.url];
    cached = await startServer([...store, '--demo', 'false', '--worker', 'false', '--requests-per-second', '0']);
    servers.push(cached);
    uncached = await startServer([
      ...store,
      '--demo',
      'false',
      '--worker',
      'false',
      '--requests-per-second',
      '0',
      '--notify',
      'false',
    ]);
    servers.push(uncached);
    sender = await provisionSender(store, 'Lookups', 100);
  });

  async function balanceAt(server: ServerProcess): Promise<{ code: unknown; balance: unknown }> {
    const { body } = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    return { code: body.result_code, balance: body.balance_main };
  }

  /** Sets the key's state without firing a trigger: no notification tells anyone. */
  async function setStateUnheard(state: 'Active' | 'Paused'): Promise<void> {
    const control = schema.control;
    await control.query('begin');
    await control.query('set local session_replication_role = replica');
    await control.query(`update ${schema.name}.api_keys set state = $1 where id = $2`, [state, Number(sender.keyId)]);
    await control.query('commit');
  }

  it('answers from its cache, and what another process commits is seen within moments', { skip }, async () => {
    // The first lookup starts the listener; lookups while it connects are not kept.
    for (let i = 0; i < 10; i++) {
      assert.deepEqual(await balanceAt(cached), { code: 'TS-1040', balance: 100 });
      await pause(30); // the listener's connecting cannot be seen from outside: give it time over a few lookups
    }
    // A change nobody hears of: the cache answers as before; without caches it is seen at once.
    await setStateUnheard('Paused');
    assert.deepEqual(await balanceAt(cached), { code: 'TS-1040', balance: 100 }, 'the key was answered from the cache');
    assert.equal((await balanceAt(uncached)).code, 'TS-1035', '--notify false keeps no cache');
    await setStateUnheard('Active');

    // A top-up by the admin CLI: its balance's notification empties the cached balance.
    await admin(['account', 'topup', '--id', sender.accountId, '--amount', '25', ...store]);
    await until(
      'the balance after a top-up',
      () => balanceAt(cached),
      (v) => v.balance === 125,
    );
    // A key paused by the admin CLI is refused, and answers again once reactivated.
    await admin(['key', 'pause', '--id', sender.keyId, ...store]);
    await until(
      'a paused key',
      () => balanceAt(cached),
      (v) => v.code === 'TS-1035',
    );
    await admin(['key', 'reactivate', '--id', sender.keyId, ...store]);
    await until(
      'a reactivated key',
      () => balanceAt(cached),
      (v) => v.code === 'TS-1040',
    );
    // A suspended account too.
    await admin(['account', 'update', '--id', sender.accountId, '--status', 'Suspended', ...store]);
    await until(
      'a suspended account',
      () => balanceAt(cached),
      (v) => v.code === 'TS-1030',
    );
    await admin(['account', 'update', '--id', sender.accountId, '--status', 'Active', ...store]);
    await until(
      'an account active again',
      () => balanceAt(cached),
      (v) => v.code === 'TS-1040',
    );
  });

  it('keeps nothing cached from before its listening connection was lost, and listens again', { skip }, async () => {
    assert.equal((await balanceAt(cached)).code, 'TS-1040');
    const { rows } = await schema.control.query<{ n: string }>(
      "select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = current_database() and query = 'listen haberci_lookups' and application_name = $1 and pid <> pg_backend_pid()",
      [schema.name],
    );
    assert.equal(Number(rows[0]?.n), 1, 'one process listens: the one with --notify');
    await until(
      'the loss in the log',
      async () => cached.output(),
      (out) => /lookup cache listener: connection lost/.test(out),
    );
    // Unheard, and made while the listener is away or just back: either way not answered from before.
    await setStateUnheard('Paused');
    assert.equal((await balanceAt(cached)).code, 'TS-1035');
    await setStateUnheard('Active');
    await until(
      'the listener back',
      async () => cached.output(),
      (out) => /lookup cache listener: connected again/.test(out),
    );
    // Listening again: cached again, and a pause by the admin CLI is heard.
    assert.equal((await balanceAt(cached)).code, 'TS-1040');
    await setStateUnheard('Paused');
    assert.equal((await balanceAt(cached)).code, 'TS-1040', 'the key was answered from the cache');
    await setStateUnheard('Active');
    await admin(['key', 'pause', '--id', sender.keyId, ...store]);
    await until(
      'a key paused after the reconnect',
      () => balanceAt(cached),
      (v) => v.code === 'TS-1035',
    );
  });
});
