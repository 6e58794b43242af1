/**
 * A PostgreSQL that falls silent (a proxy that stops forwarding both ways, closing
 * nothing) under concurrent keep-alive `/sms/send` load on `serve` with its worker: every
 * request in flight is answered while the route is still silent (within the statement
 * bound, not the silence), in the envelope, none reset; every request asked meanwhile is
 * answered too, none accepted; what the store holds afterwards is exactly what was
 * answered TS-1024, plus any answered 500 whose COMMIT was on its way, which its
 * idempotency_key then finds; nothing answered 503 is stored or charged; sends are
 * accepted again once the route carries traffic. Real `haberci serve`, real HTTP.
 * The in-process suite test/endpoints/sms-send-silent-store.test.ts proves each case alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { admin, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { startSilencingProxy } from '../helpers/silencing-proxy.js';
import { waitFor } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;
/** The statement bound of this suite (the default is 10 s). */
const boundMs = 2000;
const balance = 100_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
}

/** One POST; a connection closed or reset without an answer fails the test, saying so. */
async function post(url: string, body: unknown): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new Error(`no answer to a request (${String(error)}${cause})`);
  }
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get('retry-after'),
  };
}

const accepted = (a: Answer): boolean => a.status === 200 && a.body.result_code === 'TS-1024';
const refused503 = (a: Answer): boolean =>
  a.status === 503 && a.body.result_code === 'SRV-ERR' && a.body.result === false && a.retryAfter !== null;
const unknown500 = (a: Answer): boolean =>
  a.status === 500 && a.body.result_code === 'SRV-ERR' && a.body.result === false;

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
    'answers every request within the bound, stores exactly what was answered TS-1024 (or found by its key), and accepts sends again after',
    { skip },
    async (t) => {
      const proxy = await startSilencingProxy(new URL(pgUrl));
      try {
        server = await startServer([
          '--database',
          proxy.through(url),
          '--demo',
          'false',
          '--requests-per-second',
          '0',
          '--store-statement-timeout-ms',
          String(boundMs),
          // The client's pooled connections idle for seconds while the route is silent: a
          // server closing them for idleness as the client reuses one resets that request
          // (the keep-alive race), which is not what this suite tests.
          '--keep-alive-timeout-ms',
          '120000',
        ]);
        const running = server;
        // Made past the proxy, in the store serve has made.
        const sender = await provisionSender(['--database', url], 'Silent', balance);
        let serial = 0;
        const answers = new Map<string, Answer>();
        const pending = new Set<string>();
        const sendTo = (to: string): Promise<Answer> =>
          post(`${running.url}/sms/send`, {
            api_key: sender.apiKey,
            sentto: to,
            title: 'ACME',
            text: 'silent',
            idempotency_key: `key-${to}`,
          });
        /** A send to a number of its own, with an idempotency_key of its own. */
        const send = async (): Promise<Answer> => {
          serial += 1;
          const to = `9053${String(30_000_000 + serial)}`;
          pending.add(to);
          try {
            const answer = await sendTo(to);
            answers.set(to, answer);
            return answer;
          } finally {
            // A request left without an answer fails below, where its loop is awaited.
            pending.delete(to);
          }
        };

        // Keep-alive load with the pool's connections open, then silence in its midst.
        let loading = true;
        const loop = async (): Promise<void> => {
          while (loading) await send();
        };
        const loops = Array.from({ length: 8 }, loop);
        await waitFor('sends accepted before the silence', () => [...answers.values()].filter(accepted).length >= 8);
        proxy.silence();
        const silencedAt = Date.now();
        const inFlight = pending.size;
        loading = false;
        const askedFrom = serial + 1;
        const asked = Array.from({ length: 16 }, send);
        // Within the bound: a statement's time-out (bound + 1 s), or 5 s for a connection
        // (waitFor stretches it for a loaded machine).
        await waitFor('every request answered while the route is still silent', () => pending.size === 0, {
          timeoutMs: boundMs + 1000 + 5000,
        });
        const answeredIn = Date.now() - silencedAt;
        assert.ok(proxy.silent);
        await Promise.all([...loops, ...asked]);
        for (const [to, a] of answers)
          assert.ok(accepted(a) || refused503(a) || unknown500(a), `${to}: ${a.status} ${JSON.stringify(a.body)}`);
        for (let i = askedFrom; i <= serial; i++) {
          const a = answers.get(`9053${String(30_000_000 + i)}`);
          assert.ok(a !== undefined && !accepted(a), 'a request asked while the route was silent was accepted');
        }

        proxy.resume();
        const resumedAt = Date.now();
        await waitFor('a send accepted once the route carries traffic again', async () => accepted(await send()), {
          intervalMs: 200,
        });
        const backIn = Date.now() - resumedAt;

        const stored = async (): Promise<Map<string, number>> => {
          const { rows } = await control.query<{ recipient: string; n: string }>(
            `select recipient, count(*) as n from ${schema}.messages group by recipient`,
          );
          return new Map(rows.map((r) => [r.recipient, Number(r.n)]));
        };
        const first = await stored();
        for (const [to, a] of answers) {
          if (accepted(a)) assert.equal(first.get(to), 1, `${to}, answered TS-1024, is stored once`);
          if (refused503(a)) assert.equal(first.get(to), undefined, `${to}, answered 503, was stored`);
        }
        // A 500 had its COMMIT on the way: its key says whether it was made, and stores it once.
        const unknown = [...answers].filter(([, a]) => unknown500(a)).map(([to]) => to);
        const made = unknown.filter((to) => first.get(to) === 1).length;
        for (const to of unknown) assert.ok(accepted(await sendTo(to)), `${to} sent again with its key`);
        const last = await stored();
        for (const to of unknown) assert.equal(last.get(to), 1, `${to} is stored once after its key was sent again`);
        const messages = [...last.values()].reduce((n, c) => n + c, 0);
        const shown = await admin(['account', 'show', '--id', sender.accountId, '--database', url]);
        assert.equal(balance - Number(shown.balance_main), messages, 'every stored message charged once, nothing else');

        const count = (p: (a: Answer) => boolean) => [...answers.values()].filter(p).length;
        t.diagnostic(
          `${inFlight} in flight at the silence and ${asked.length} asked during it, all answered in ${answeredIn} ms (bound ${boundMs} ms): ${count(refused503)} x 503, ${unknown.length} x 500 (${made} of them made, found by the key); accepted again ${backIn} ms after the route resumed; ${messages} stored and charged for ${count(accepted)} x TS-1024 + ${unknown.length} sent again by key`,
        );
      } finally {
        await proxy.close();
      }
    },
  );
});
