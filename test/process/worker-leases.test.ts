/**
 * Two worker processes on one PostgreSQL store, an SMSC that holds every submit_sm_resp
 * longer than the lease: a live worker's heartbeat keeps the messages it holds, so none is
 * submitted twice; a worker killed with SIGKILL mid-submit leaves its messages to the other
 * after the (short) lease. Real `haberci serve` and `haberci smsc-sim` processes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { startSimulator, stop, writeSimCarrierConfig } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;
const leaseMs = 2500;
const respDelayMs = 6000;

describe('worker leases on a shared PostgreSQL store', () => {
  const schema = testSchemaName();
  const dir = mkdtempSync(join(tmpdir(), 'haberci-leases-'));
  const servers: ServerProcess[] = [];
  let sim: Simulator | null = null;
  let url = '';
  let sender: ProvisionedSender;
  /** The options of every worker of the suite. */
  let args: string[] = [];

  before(async () => {
    if (skip) return;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.end();
    url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    sim = await startSimulator([
      '--port',
      '0',
      '--submit-resp-delay-ms',
      String(respDelayMs),
      '--receipt-delay-ms',
      String(respDelayMs + 500),
    ]);
    const config = join(dir, 'smpp.json');
    writeSimCarrierConfig(config, sim.port, { windowSize: 20, maxSubmitsPerSecond: 1000 }, { submitTimeoutMs: 20_000 });
    args = [
      '--database',
      url,
      '--smpp-config',
      config,
      '--lease-ms',
      String(leaseMs),
      '--demo',
      'false',
      '--requests-per-second',
      '0',
    ];
    servers.push(await startServer(args));
    // The schema is migrated: the second worker starts while the sender is provisioned.
    const [second, provisioned] = await Promise.all([
      startServer(args),
      provisionSender(['--database', url], 'Leases', 1000),
    ]);
    servers.push(second);
    sender = provisioned;
  });

  after(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    if (sim) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
    if (skip) return;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  const submitsTo = async (to: string): Promise<number> => {
    const all = (await (await fetch((sim?.stats ?? '').replace(/\/stats$/, `/submits?to=${to}`))).json()) as unknown[];
    return all.length;
  };
  const send = async (server: ServerProcess, to: string): Promise<number> => {
    const answer = await postJson(`${server.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: to,
      title: 'ACME',
      text: 'lease',
      sms_lang: 0,
    });
    assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    return Number(answer.body.sms_id);
  };
  const delivered = async (server: ServerProcess, id: number): Promise<boolean> =>
    (await postJson(`${server.url}/sms/status`, { api_key: sender.apiKey, sms_id: id })).body.result_code === 'TS-1064';

  it(
    'a live worker keeps what it holds past the lease: one submit each, though each takes longer than the lease',
    { skip },
    async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const numbers = ['905321240011', '905321240012', '905321240013'];
      const ids: number[] = [];
      for (const to of numbers) ids.push(await send(a, to));
      for (const id of ids)
        await waitFor(`message ${id} delivered`, () => delivered(b, id), { timeoutMs: 30_000, intervalMs: 100 });
      // Each submit was held 6 s against a 2.5 s lease, while the other worker looked for
      // expired leases every 2 s: without the heartbeat it would have submitted each again.
      for (const to of numbers) assert.equal(await submitsTo(to), 1, `submits to ${to}`);
    },
  );

  it('a worker killed mid-submit leaves its messages to the other after the lease', { skip }, async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const numbers = ['905321240021', '905321240022', '905321240023'];
    // Sent at once, so they reach the SMSC together and the kill comes well inside the 6 s it
    // holds the first one's answer (sent one by one on a loaded machine, the first was
    // answered, recorded and delivered by a before the last had reached the SMSC).
    const ids = await Promise.all(numbers.map((to) => send(a, to)));
    // The SMSC has them, and holds its answers: the messages are in flight in worker a.
    await waitFor(
      'the submits to reach the SMSC',
      async () => (await Promise.all(numbers.map(submitsTo))).every((n) => n === 1),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    a.child.kill('SIGKILL');
    await a.exited;
    for (const id of ids)
      await waitFor(`message ${id} delivered by the other worker`, () => delivered(b, id), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
    // The dead worker's submits were never answered to anyone: the other submitted each once
    // more (the bound written in docs/decisions.md, Delivery).
    for (const to of numbers) assert.equal(await submitsTo(to), 2, `submits to ${to}`);
  });

  it(
    'a worker killed with kill -9 mid-batch: every message is delivered, a second submit only for those the SMSC held from it',
    { skip },
    async () => {
      // Two fresh workers beside b (the first test's a is gone). The carrier's one bind is
      // b's since a died (docs/smpp.md, "Binds across a cluster"): b submits what c accepts,
      // and b is the worker killed mid-batch.
      const b = servers[1] as ServerProcess;
      const [c, d] = await Promise.all([startServer(args), startServer(args)]);
      servers.push(c, d);
      assert.match(b.output(), /holds a bind of the connection/);
      // A batch well past the SMSC window (20): when the kill comes, some of c's messages are
      // at the SMSC awaiting their answer, the rest leased to c and waiting.
      const numbers = Array.from({ length: 40 }, (_, i) => `9053212410${String(i).padStart(2, '0')}`);
      const ids = await Promise.all(numbers.map((to) => send(c, to)));
      await waitFor(
        'the first submits of the batch to reach the SMSC',
        async () => (await Promise.all(numbers.map(submitsTo))).some((n) => n > 0),
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      b.child.kill('SIGKILL');
      await b.exited;
      // Read at once, well inside the lease (nobody else may submit them before it runs out).
      const atKill = await Promise.all(numbers.map(submitsTo));
      const inFlight = new Set(numbers.filter((_, i) => (atKill[i] ?? 0) > 0));
      assert.ok(
        inFlight.size > 0 && inFlight.size < numbers.length,
        `mid-batch: ${inFlight.size} of ${numbers.length} at the SMSC`,
      );
      // None lost: the other worker delivers each after the lease.
      await waitFor(
        'every message delivered by the other worker',
        async () => (await Promise.all(ids.map((id) => delivered(d, id)))).every(Boolean),
        { timeoutMs: 90_000, intervalMs: 100 },
      );
      // At least once, and twice only for what the dead worker had in flight at the SMSC
      // (the bound of docs/decisions.md, Delivery): what it merely held leased goes once.
      for (const to of numbers)
        assert.equal(
          await submitsTo(to),
          inFlight.has(to) ? 2 : 1,
          `submits to ${to} (in flight at the kill: ${inFlight.has(to)})`,
        );
    },
  );
});
