/**
 * The built-in simulator keeps nothing, so a report it owed when its process died is owed
 * again: the next `serve` on the store reports it, once, and submits nothing again. (It asks
 * for them a delay after its start, and only for what was submitted before it: on a shared
 * PostgreSQL store another live process reports what it submitted itself.)
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { stop } from '../helpers/smsc-sim.js';
import { opsAddress, sample, scrapeUntil } from '../helpers/metrics-text.js';
import { waitFor } from '../helpers/wait-for.js';

describe('the built-in simulator after its process was killed (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-sim-replay-'));
  const servers: ServerProcess[] = [];
  after(async () => {
    // The killed one has exited already: stop() would wait for an exit that came before.
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) await stop(s.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports again, after a restart, the message it had submitted and not yet reported', async () => {
    // Reports come 15 s after the submit: long enough to kill the process in between, and
    // to see the restarted one still waiting, whose replay comes this delay and a second after
    // its job thread started (before its port opened: with 4 s, a start on a loaded machine
    // was slower than that, and the message was reported before it was asked for).
    const args = ['--data', dir, '--demo', 'false', '--ops-port', '0', '--sim-delay-ms', '15000'];
    const first = await startServer(args);
    servers.push(first);
    const sender = await provisionSender(['--data', dir], 'Replay', 100);
    const answer = await postJson(`${first.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: '905321234567',
      title: 'ACME',
      text: 'replay',
    });
    assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    const id = String(answer.body.sms_id);
    const ops = opsAddress(first.output());
    const submitted = await scrapeUntil(
      ops,
      'the message to be submitted',
      (t) => sample(t, 'haberci_messages_total{outcome="submitted"}') === 1,
    );
    assert.equal(sample(submitted, 'haberci_messages_total{outcome="delivered"}'), 0, 'not reported yet');
    first.child.kill('SIGKILL');
    await first.exited;
    const status = async (url: string) =>
      (await postJson(`${url}/sms/status`, { api_key: sender.apiKey, sms_id: id })).body;
    const second = await startServer(args);
    servers.push(second);
    assert.equal((await status(second.url)).result_code, 'TS-1022', 'still waiting for its report at the restart');
    await waitFor(
      'the restarted process to report the message',
      async () => {
        return (await status(second.url)).result_code === 'TS-1064';
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const counted = await scrapeUntil(
      opsAddress(second.output()),
      'the report to be counted',
      (t) => sample(t, 'haberci_messages_total{outcome="delivered"}') === 1,
    );
    assert.equal(sample(counted, 'haberci_messages_total{outcome="submitted"}'), 0, 'not submitted again');
  });
});
