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

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;
/** The worker's poll interval: far longer than a woken worker takes. */
const pollMs = 8000;
/** How long a woken worker may take, accept to delivered (the simulator reports after simDelayMs). */
const wokenWithinMs = 2000;
/**
 * The simulator's report delay: long enough that the report never overtakes the submit's
 * record (a report that does is kept, and recorded at the worker's next round).
 */
const simDelayMs = 200;

describe('wakes between processes on PostgreSQL', () => {
  const schema = testSchemaName();
  let url = '';
  let control: pg.Client;
  const servers: ServerProcess[] = [];
  let httpOnly: ServerProcess;
  let worker: ServerProcess;
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
    ]);
    servers.push(worker);
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

  /** Sends one message through the HTTP-only process; answers the ms from its answer to /sms/status saying delivered. */
  async function acceptToDelivered(n: number): Promise<number> {
    const accepted = await postJson(`${httpOnly.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: `05321234${String(n).padStart(3, '0')}`,
      title: 'ACME',
      text: 'wake',
      sms_lang: 0,
    });
    assert.equal(accepted.body.result_code, 'TS-1024', JSON.stringify(accepted.body));
    const started = Date.now();
    const id = String(accepted.body.sms_id);
    while (Date.now() - started < pollMs + 4000) {
      const status = await postJson(`${httpOnly.url}/sms/status`, { api_key: sender.apiKey, sms_id: id });
      if (status.body.result_code === 'TS-1064') return Date.now() - started;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`message ${id} not delivered within ${pollMs + 4000} ms`);
  }

  it(
    'a message accepted by an HTTP-only process is submitted by the worker process at once, not at its next poll',
    { skip },
    async () => {
      // The worker has just polled at start, so its next poll is seconds away for each send.
      const times: number[] = [];
      for (let i = 0; i < 3; i++) times.push(await acceptToDelivered(i));
      for (const ms of times)
        assert.ok(ms < wokenWithinMs, `accept to delivered ${times.join(', ')} ms; the poll interval is ${pollMs}ms`);
    },
  );

  it('the worker listens again after its listening connection is ended', { skip }, async () => {
    const { rows } = await control.query<{ n: string }>(
      "select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = current_database() and query = 'listen haberci_wake' and application_name = $1 and pid <> pg_backend_pid()",
      [schema],
    );
    assert.ok(Number(rows[0]?.n) >= 1, 'the worker\u2019s threads listen on connections of their own');
    // It connects again within a few hundred ms (first retry 100 ms).
    await new Promise((r) => setTimeout(r, 1000));
    assert.match(worker.output(), /wake listener: connection lost/);
    assert.match(worker.output(), /wake listener: connected again/);
    const ms = await acceptToDelivered(10);
    assert.ok(
      ms < wokenWithinMs,
      `accept to delivered ${ms} ms after the reconnect; the poll interval is ${pollMs} ms`,
    );
  });
});
