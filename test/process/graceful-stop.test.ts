/**
 * SIGTERM under load from keep-alive clients: every request the server received is
 * answered, those that arrive while it stops get the envelope with SRV-ERR and
 * `Connection: close`, and no connection is reset under a request. A real `haberci serve`.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { provisionSender, startServer } from '../helpers/server-process.js';
import { pause } from '../helpers/wait-for.js';

/** The error code under a failed request (undici puts the socket's in `cause` or its own `code`). */
function errorCode(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  return String(e.cause?.code ?? e.code ?? 'unknown');
}

describe('SIGTERM under keep-alive load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-stop-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers every request it received, new ones with SRV-ERR and Connection: close, and resets none', async () => {
    const server = await startServer([
      '--data',
      dir,
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--drain-ms',
      '6000',
    ]);
    const sender = await provisionSender(['--data', dir], 'Stop', 100_000);
    const agent = new Agent({ connections: 16, keepAliveTimeout: 60_000, pipelining: 1 });
    const answers = new Map<string, number>();
    const failures = new Map<string, number>();
    let stopSent = false;
    let answeredAfterStop = 0;
    const count = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);

    const client = async (n: number): Promise<void> => {
      for (let i = 0; ; i++) {
        const path = i % 2 === 0 ? '/balance/' : '/sms/send';
        const body =
          path === '/balance/'
            ? { api_key: sender.apiKey }
            : {
                api_key: sender.apiKey,
                sentto: `0532${String(1_000_000 + n * 10_000 + (i % 10_000)).slice(-7)}`,
                title: 'ACME',
                text: 'bye',
                sms_lang: 0,
              };
        try {
          const response = await request(`${server.url}${path}`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const answer = (await response.body.json()) as Record<string, unknown>;
          count(answers, `${response.statusCode} ${String(answer.result_code)}`);
          if (stopSent) answeredAfterStop++;
          if (response.statusCode === 503) assert.equal(response.headers.connection, 'close');
        } catch (error) {
          const code = errorCode(error);
          // Once the port is closed, a new connection is refused: the request was never sent.
          if (code === 'ECONNREFUSED') return;
          count(failures, code);
          if (!stopSent) throw error;
        }
      }
    };
    const clients = Array.from({ length: 12 }, (_, n) => client(n));
    // On purpose: the clients keep the server under keep-alive load for a while before the stop.
    await pause(800);
    stopSent = true;
    server.child.kill('SIGTERM');
    await Promise.all(clients);
    const exit = await server.exited;
    await agent.close();

    assert.equal(exit, 0);
    assert.deepEqual(
      [...failures],
      [],
      `requests without an answer: ${JSON.stringify([...failures])}; answers ${JSON.stringify([...answers])}`,
    );
    assert.ok(answeredAfterStop > 0, 'requests sent after SIGTERM were answered');
    const stopping = answers.get('503 SRV-ERR') ?? 0;
    assert.ok(stopping > 0, `requests arriving while it stopped got SRV-ERR: ${JSON.stringify([...answers])}`);
    for (const key of answers.keys()) assert.match(key, /^(200 TS-1040|200 TS-1024|503 SRV-ERR)$/);
  });
});
