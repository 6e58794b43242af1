/**
 * The HTTP thread never sleeps on SQLite's write lock: while another connection (the
 * delivery thread, the admin CLI, a second server) holds it, a send waits for it with the
 * event loop running, so other requests are answered meanwhile, and the send goes through
 * once the lock is free.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import { pause } from '../helpers/wait-for.js';

describe('a send while another connection holds the write lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-write-lock-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('waits for the lock without stopping other requests, then is accepted', async () => {
    const server = await startServer([
      '--data',
      dir,
      '--demo',
      'false',
      '--requests-per-second',
      '0',
      '--sim-delay-ms',
      '0',
    ]);
    const other = new BetterSqlite3(join(dir, 'haberci.sqlite'));
    try {
      const { accountId: id, apiKey: key } = await provisionSender(['--data', dir], 'Locked', 10);
      assert.equal((await postJson(`${server.url}/balance/`, { api_key: key })).status, 200);

      other.exec('begin immediate');
      let released = 0;
      const send = postJson(`${server.url}/sms/send`, {
        api_key: key,
        sentto: '905321234567',
        title: 'ACME',
        text: 'held',
        sms_lang: 0,
      }).then((answer) => ({ answer, at: Date.now() }));
      // On purpose: the send must be waiting for the held lock when the balance is asked.
      await pause(300);
      // The send is waiting for the lock; the server still answers.
      const balance = await postJson(`${server.url}/balance/`, { api_key: key });
      assert.equal(balance.status, 200);
      released = Date.now();
      other.exec('commit');

      const { answer, at } = await send;
      assert.equal(answer.status, 200, JSON.stringify(answer.body) + server.output());
      assert.equal(answer.body.result_code, 'TS-1024');
      assert.ok(at >= released, 'the send was answered before the lock was released');
      const shown = await admin(['account', 'show', '--id', id, '--data', dir]);
      assert.equal(shown.balance_main, 9);
    } finally {
      other.close();
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }
  });
});
