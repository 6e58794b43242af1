/**
 * A PostgreSQL that falls silent (a proxy that stops forwarding both ways, closing
 * nothing): requests on connections already open are answered SRV-ERR within the
 * statement bound instead of waiting for ever, none of them is charged, and sends are
 * accepted again once the route carries traffic. Real `haberci serve`, real HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import pg from 'pg';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;

/**
 * A TCP proxy to PostgreSQL that the test silences and resumes: while silent it accepts
 * connections and bytes and forwards nothing, in either direction, and closes nothing
 * (what it holds, closes included, goes on in order when it resumes), as a route that
 * stops carrying packets looks to both ends.
 */
async function startSilencingProxy(
  target: URL,
): Promise<{ port: number; silence(): void; resume(): void; close(): Promise<void> }> {
  let silent = false;
  const held: (() => void)[] = [];
  const open = new Set<Socket>();
  const later = (step: () => void): void => {
    if (silent) held.push(step);
    else step();
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('data', (chunk) => later(() => b.write(chunk)));
      a.on('end', () => later(() => b.end()));
      a.on('error', () => later(() => b.destroy()));
      a.on('close', () => {
        open.delete(a);
        later(() => b.destroy());
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    silence() {
      silent = true;
    },
    resume() {
      silent = false;
      for (const step of held.splice(0)) step();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `promise`, or a failure naming `what` once `ms` have passed: the test's own bound on a wait. */
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

describe('PostgreSQL silent behind a proxy', () => {
  const schema = testSchemaName();
  let control: pg.Client;
  let url = '';
  let server: ServerProcess | null = null;

  before(async () => {
    if (skip) return;
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await control.query(`create schema ${schema}`);
    url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`;
  });

  after(async () => {
    if (skip) return;
    if (server) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await control.query(`drop schema if exists ${schema} cascade`);
    await control.end();
  });

  it(
    'answers SRV-ERR within the statement bound, charges none of those, and accepts sends again after',
    { skip },
    async (t) => {
      const proxy = await startSilencingProxy(new URL(pgUrl));
      try {
        const proxied = new URL(url);
        proxied.hostname = '127.0.0.1';
        proxied.port = String(proxy.port);
        // A bound of 2 s keeps the suite short; the default is 10 s.
        server = await startServer([
          '--database',
          proxied.toString(),
          '--demo',
          'false',
          '--requests-per-second',
          '0',
          '--store-statement-timeout-ms',
          '2000',
          // The client's pooled connections idle for seconds while the route is silent: a
          // server closing them for idleness as the client reuses one resets that request
          // (the keep-alive race), which is not what this suite tests.
          '--keep-alive-timeout-ms',
          '120000',
        ]);
        const running = server;
        const sender = await provisionSender(['--database', url], 'Silent', 100_000);
        const send = (to: string) =>
          postJson(`${running.url}/sms/send`, {
            api_key: sender.apiKey,
            sentto: to,
            title: 'ACME',
            text: 'silent',
            sms_lang: 0,
          });
        const accepted: number[] = [];
        const accept = (answer: { status: number; body: Record<string, unknown> }): boolean => {
          if (answer.body.result_code !== 'TS-1024') return false;
          accepted.push(Number(answer.body.sms_id));
          return true;
        };
        const isSrvErr = (answer: { status: number; body: Record<string, unknown> }) =>
          answer.status === 500 && answer.body.result_code === 'SRV-ERR' && answer.body.result === false;

        // Load with the pool's connections open, then silence in its midst.
        let sending = true;
        let inFlightAtSilence = 0;
        const loop = async (n: number): Promise<void> => {
          for (let i = 0; sending; i++) {
            const answer = await send(`05341${n}${String(10_000 + i)}`);
            assert.ok(accept(answer) || isSrvErr(answer), `unexpected answer ${JSON.stringify(answer.body)}`);
          }
        };
        const load = [0, 1, 2].map(loop);
        await waitFor('sends accepted before the silence', () => accepted.length >= 6);
        proxy.silence();
        const silencedAt = Date.now();
        inFlightAtSilence = load.length;
        sending = false;
        // Asked after the route fell silent, on connections the pool already holds (and new
        // ones it would open): every one answered SRV-ERR, none waits without bound.
        const asked = Array.from({ length: 16 }, (_, i) => `05349${String(100_000 + i)}`);
        const answers = await within(
          'a request while PostgreSQL is silent',
          30_000,
          Promise.all(asked.map((to) => send(to))),
        );
        for (const answer of answers) assert.ok(isSrvErr(answer), `unexpected answer ${JSON.stringify(answer.body)}`);
        // Those in flight at the silence are answered too (accepted or SRV-ERR).
        await within('a request in flight at the silence', 30_000, Promise.all(load));

        const answeredIn = Date.now() - silencedAt;
        proxy.resume();
        const resumedAt = Date.now();
        await waitFor(
          'a send accepted after the route carries traffic again',
          async () => accept(await send('05348100000')),
          {
            timeoutMs: 20_000,
            intervalMs: 200,
          },
        );

        const backIn = Date.now() - resumedAt;
        // None of the requests answered SRV-ERR during the silence was stored or charged.
        const { rows } = await control.query<{ n: string }>(
          `select count(*) as n from ${schema}.messages where recipient like '%5349100%'`,
        );
        assert.equal(Number(rows[0]?.n), 0, 'a request answered SRV-ERR was stored');
        // The account paid for the accepted sends, and at most for those whose COMMIT the
        // server made just before the silence, its answer held on the way (docs/operations.md).
        const shown = await admin(['account', 'show', '--id', sender.accountId, '--database', url]);
        const charged = 100_000 - Number(shown.balance_main);
        assert.ok(
          charged >= accepted.length && charged <= accepted.length + inFlightAtSilence,
          `charged ${charged} for ${accepted.length} accepted sends`,
        );
        t.diagnostic(
          `${answers.length} requests answered SRV-ERR while silent, all in ${answeredIn} ms; accepted again ${backIn} ms after the route resumed; charged ${charged}, accepted ${accepted.length}`,
        );
      } finally {
        await proxy.close();
      }
    },
  );
});
