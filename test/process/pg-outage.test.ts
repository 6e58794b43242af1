/**
 * A PostgreSQL store whose connections are ended under load (a server restart, a failover,
 * a pooler or an administrator ending them): every process rides through it, answers in
 * the envelope while a connection is gone, loses no accepted message, and recovers by
 * itself. Real `haberci serve` processes on a schema of their own, real HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import pg from 'pg';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { pause } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;

/**
 * Ends every connection the processes under test hold (named by their URL's
 * `application_name`), not those of other suites sharing the database; returns how many.
 */
async function terminateBackends(client: pg.Client, applicationName: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and application_name = $1',
    [applicationName],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * A TCP proxy between the processes and PostgreSQL that the test cuts and restores: while
 * cut, every connection through it is dropped and new ones are reset at once, as a
 * PostgreSQL that went away (restarted, failed over) looks to its clients. The real server
 * is shared with other suites, so it is never restarted itself.
 */
async function startProxy(
  target: URL,
): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  let down = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// The skip is on the test, not the suite: node counts the tests of a skipped suite as none.
describe('PostgreSQL connections ended under load', () => {
  const schema = testSchemaName();
  let control: pg.Client;
  let url = '';
  const servers: ServerProcess[] = [];

  before(async () => {
    if (skip) return;
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await control.query(`create schema ${schema}`);
    url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`;
  });

  after(async () => {
    if (skip) return;
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    // A fresh connection: the control connection may itself have been ended by a test.
    const cleanup = new pg.Client({ connectionString: pgUrl });
    await cleanup.connect();
    await cleanup.query(`drop schema if exists ${schema} cascade`);
    await cleanup.end();
    await control.end().catch(() => undefined);
  });

  it('keeps every process up, answers in the envelope, and loses no accepted message', { skip }, async () => {
    // Two processes, as a provider runs them: one answering HTTP only, one also delivering.
    servers.push(
      await startServer(['--database', url, '--demo', 'false', '--sim-delay-ms', '20', '--requests-per-second', '0']),
    );
    servers.push(
      await startServer(['--database', url, '--demo', 'false', '--worker', 'false', '--requests-per-second', '0']),
    );
    const store = ['--database', url];
    const sender = await provisionSender(store, 'Outage', 100_000);

    const accepted = new Set<number>();
    const outcomes = new Map<string, number>();
    let sending = true;
    // A client that got SRV-ERR sends the same request again, with the same idempotency_key,
    // until it is answered: a connection ended while its COMMIT was on the way leaves the
    // outcome unknown to the server, and only the key makes the retry safe (see the proxy
    // cut below).
    const client = async (server: ServerProcess, n: number): Promise<void> => {
      for (let i = 0; sending; i++) {
        // Numbers the simulator delivers (none ends in 0000, 0001 or 0002).
        const to = `0532${String(n).padStart(2, '0')}${String(10 + (i % 90_000)).padStart(5, '0')}`;
        for (;;) {
          let answer: { status: number; body: Record<string, unknown> };
          try {
            answer = await postJson(`${server.url}/sms/send`, {
              api_key: sender.apiKey,
              sentto: to,
              title: 'ACME',
              text: 'outage',
              sms_lang: 0,
              idempotency_key: `outage-${n}-${i}`,
            });
          } catch (error) {
            assert.fail(`a request got no answer: ${String(error)}`);
          }
          const code = String(answer.body.result_code);
          outcomes.set(`${answer.status} ${code}`, (outcomes.get(`${answer.status} ${code}`) ?? 0) + 1);
          if (code === 'TS-1024') {
            accepted.add(Number(answer.body.sms_id));
            break;
          }
          // 503: nothing of it was committed; 500: its COMMIT was on the way (docs/decisions.md).
          assert.ok(
            (answer.status === 503 || answer.status === 500) && code === 'SRV-ERR' && answer.body.result === false,
            `unexpected answer ${answer.status} ${JSON.stringify(answer.body)}`,
          );
        }
      }
    };
    const load = servers.flatMap((server, s) => [0, 1, 2].map((c) => client(server, s * 10 + c)));

    // Repeatedly end every connection the processes hold, while they work.
    let ended = 0;
    for (let round = 0; round < 6; round++) {
      // On purpose: the processes work a while between the ends of their connections.
      await pause(300);
      ended += await terminateBackends(control, schema);
    }
    await pause(300);
    sending = false;
    await Promise.all(load);

    assert.ok(ended >= 6, `connections were ended (${ended})`);
    for (const s of servers) assert.equal(s.child.exitCode, null, `a process exited:\n${s.output()}`);
    assert.ok(accepted.size > 0, `sends were accepted during the rounds: ${JSON.stringify([...outcomes])}`);

    // Both processes answer again by themselves.
    for (const s of servers) {
      const balance = await postJson(`${s.url}/balance/`, { api_key: sender.apiKey });
      assert.equal(balance.body.result_code, 'TS-1040');
    }
    // Every accepted message is stored and reaches its final state: none lost.
    const deadline = Date.now() + 30_000;
    let pending = [...accepted];
    while (pending.length > 0 && Date.now() < deadline) {
      const still: number[] = [];
      for (const id of pending) {
        const status = await postJson(`${servers[1]?.url ?? ''}/sms/status`, { api_key: sender.apiKey, sms_id: id });
        if (status.body.result_code !== 'TS-1064') still.push(id);
      }
      pending = still;
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(pending, [], 'every accepted message was delivered');
    // The account paid for exactly the accepted messages: nothing charged twice or for a refused send.
    const shown = await admin(['account', 'show', '--id', sender.accountId, ...store]);
    assert.equal(100_000 - Number(shown.balance_main), accepted.size);
  });
  it(
    'PostgreSQL away for seconds (a proxy cut): SRV-ERR meanwhile, nothing accepted is lost, and back by itself soon after',
    { skip },
    async (t) => {
      const direct = new URL(pgUrl);
      const proxy = await startProxy(direct);
      try {
        const proxied = new URL(url);
        proxied.hostname = '127.0.0.1';
        proxied.port = String(proxy.port);
        const server = await startServer([
          '--database',
          proxied.toString(),
          '--demo',
          'false',
          '--sim-delay-ms',
          '20',
          '--requests-per-second',
          '0',
        ]);
        servers.push(server);
        const sender = await provisionSender(['--database', url], 'Away', 100_000);

        const accepted = new Set<number>();
        const answers: { sentAt: number; at: number; status: number; code: string }[] = [];
        let sending = true;
        // Each send carries an idempotency_key, and a client that got SRV-ERR sends the same
        // request again until it is answered, as a careful client does: a connection cut while
        // its COMMIT was on the way leaves the outcome unknown to the server (it answers
        // SRV-ERR, yet the send may be in the store), and only the key makes the retry safe.
        // So every charge must belong to an sms_id some client was given.
        const client = async (n: number): Promise<void> => {
          for (let i = 0; sending; i++) {
            const to = `0533${String(n).padStart(2, '0')}${String(10 + (i % 90_000)).padStart(5, '0')}`;
            for (;;) {
              const sentAt = Date.now();
              const answer = await postJson(`${server.url}/sms/send`, {
                api_key: sender.apiKey,
                sentto: to,
                title: 'ACME',
                text: 'away',
                sms_lang: 0,
                idempotency_key: `away-${n}-${i}`,
              });
              const code = String(answer.body.result_code);
              answers.push({ sentAt, at: Date.now(), status: answer.status, code });
              if (code === 'TS-1024') {
                accepted.add(Number(answer.body.sms_id));
                break;
              }
              assert.ok(
                (answer.status === 503 || answer.status === 500) && code === 'SRV-ERR' && answer.body.result === false,
                `unexpected answer ${answer.status} ${JSON.stringify(answer.body)}`,
              );
              await new Promise((r) => setTimeout(r, 20));
            }
          }
        };
        const load = [0, 1, 2].map(client);
        // On purpose, here and below: load before the cut, during it and after the return.
        await pause(1000);
        const cutAt = Date.now();
        proxy.cut();
        await pause(1500);
        const ready = await fetch(`${server.url}/readyz`);
        assert.equal(ready.status, 503, 'not ready while the store is away');
        await pause(1500);
        const restoredAt = Date.now();
        proxy.restore();
        await pause(6000);
        sending = false;
        await Promise.all(load);

        assert.equal(server.child.exitCode, null, `the process exited:\n${server.output()}`);
        // Asked and answered while the store was away: 503 SRV-ERR, every one (none of them
        // could reach a COMMIT, so none is of unknown outcome).
        const away = answers.filter((a) => a.sentAt > cutAt + 200 && a.at < restoredAt);
        assert.ok(away.length > 0, 'requests were answered while the store was away');
        assert.deepEqual([...new Set(away.map((a) => `${a.status} ${a.code}`))], ['503 SRV-ERR']);
        // Back by itself within seconds of the store's return.
        const back = answers.find((a) => a.sentAt >= restoredAt && a.code === 'TS-1024');
        assert.ok(
          back !== undefined,
          `no send accepted after the store came back: ${JSON.stringify(answers.slice(-5))}`,
        );
        assert.ok(back.at - restoredAt < 5000, `accepted again ${back.at - restoredAt} ms after the store came back`);
        t.diagnostic(
          `${away.length} requests answered SRV-ERR while away; a send accepted again ${back.at - restoredAt} ms after the store came back`,
        );
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200);

        // Every accepted message is delivered, and paid for once.
        const deadline = Date.now() + 30_000;
        let pending = [...accepted];
        while (pending.length > 0 && Date.now() < deadline) {
          const still: number[] = [];
          for (const id of pending) {
            const status = await postJson(`${server.url}/sms/status`, { api_key: sender.apiKey, sms_id: id });
            if (status.body.result_code !== 'TS-1064') still.push(id);
          }
          pending = still;
          if (pending.length > 0) await new Promise((r) => setTimeout(r, 200));
        }
        assert.deepEqual(pending, [], 'every accepted message was delivered');
        const shown = await admin(['account', 'show', '--id', sender.accountId, '--database', url]);
        assert.equal(100_000 - Number(shown.balance_main), accepted.size, 'charged exactly the sends answered');
      } finally {
        await proxy.close();
      }
    },
  );
});
