/**
 * Wakes between processes on PostgreSQL (issue 24): a message accepted by a process that
 * only answers HTTP (`--worker false`) is submitted by another process's worker at once,
 * woken by NOTIFY, not at the worker's next poll; and the worker's listening connection,
 * when it is ended, comes back by itself. Real processes, real HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';
import { opsAddress, sample, scrape } from '../helpers/metrics-text.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;
/**
 * The worker's poll interval: the longest allowed, longer than the suite, so that after the
 * poll at its start the worker finds a message only by being woken. How fast a wake is, is a
 * figure of `npm run bench -- --only cluster-wake` (docs/benchmarks.md), not of this test.
 */
const pollMs = 600_000;
/** Generous for a loaded machine, and far below pollMs: a delivery within it was woken. */
const wokenWithinMs = 60_000;
/**
 * The simulator's report delay. A report that overtakes the submit's record (a loaded
 * machine) is kept and recorded at the worker's next round, which this test puts far away:
 * so what is waited for is the worker's submit (its /metrics), not the delivery.
 */
const simDelayMs = 200;

describe('wakes between processes on PostgreSQL', () => {
  const schema = testSchemaName();
  let url = '';
  let control: pg.Client;
  const servers: ServerProcess[] = [];
  let httpOnly: ServerProcess;
  let worker: ServerProcess;
  let workerOps = '';
  let submitted = 0;
  let sender: ProvisionedSender;

  before(async () => {
    if (skip) return;
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await control.query(`create schema ${schema}`);
    // Named, so the test ends only its own processes' connections, not other suites'.
    url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`;
    worker = await startServer([
      '--database',
      url,
      '--demo',
      'false',
      '--sim-delay-ms',
      String(simDelayMs),
      '--dispatch-poll-ms',
      String(pollMs),
      '--requests-per-second',
      '0',
      '--ops-port',
      '0',
    ]);
    servers.push(worker);
    workerOps = opsAddress(worker.output());
    httpOnly = await startServer([
      '--database',
      url,
      '--demo',
      'false',
      '--worker',
      'false',
      '--requests-per-second',
      '0',
    ]);
    servers.push(httpOnly);
    sender = await provisionSender(['--database', url], 'Wake', 100);
  });

  after(async () => {
    if (skip) return;
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await control.query(`drop schema if exists ${schema} cascade`);
    await control.end();
  });

  /** Sends one message through the HTTP-only process; resolves once the worker has submitted it (fails after wokenWithinMs). */
  async function acceptToDelivered(n: number): Promise<void> {
    const accepted = await postJson(`${httpOnly.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: `05321234${String(n).padStart(3, '0')}`,
      title: 'ACME',
      text: 'wake',
      sms_lang: 0,
    });
    assert.equal(accepted.body.result_code, 'TS-1024', JSON.stringify(accepted.body));
    const id = String(accepted.body.sms_id);
    submitted += 1;
    await waitFor(
      `message ${id} submitted by the worker before its next poll`,
      async () => sample(await scrape(workerOps), 'haberci_messages_total{outcome="submitted"}') >= submitted,
      { timeoutMs: wokenWithinMs },
    );
  }

  it(
    'a message accepted by an HTTP-only process is submitted by the worker process at once, not at its next poll',
    { skip },
    async () => {
      // The worker has just polled at start, so its next poll is seconds away for each send.
      for (let i = 0; i < 3; i++) await acceptToDelivered(i);
    },
  );

  it('the worker listens again after its listening connection is ended', { skip }, async () => {
    const { rows } = await control.query<{ n: string }>(
      "select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = current_database() and query = 'listen haberci_wake' and application_name = $1 and pid <> pg_backend_pid()",
      [schema],
    );
    assert.ok(Number(rows[0]?.n) >= 1, 'the worker\u2019s threads listen on connections of their own');
    // It connects again within a few hundred ms (first retry 100 ms).
    await waitFor('the listener connected again', () => /wake listener: connected again/.test(worker.output()));
    assert.match(worker.output(), /wake listener: connection lost/);
    assert.match(worker.output(), /wake listener: connected again/);
    await acceptToDelivered(10);
  });
});
