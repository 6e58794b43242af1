/**
 * A full disk under the SQLite store (a small tmpfs, filled): every request is answered in
 * the envelope (503 SRV-ERR with Retry-After for what cannot be stored), none hangs, the
 * write lock is given back on every error path (no "cannot rollback" in the log), /readyz
 * says the store cannot write while /healthz stays up, sends are accepted again by
 * themselves once space comes back, and SIGTERM ends the process. A real `haberci serve`.
 * Mounting a tmpfs needs root (the suite's machine runs the tests as root).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

/** One request's answer; a request that gets none within `ms` fails the test (the wedge this guards against). */
async function post(
  url: string,
  body: unknown,
  ms = 20_000,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** Writes `path` until the filesystem has no room left; returns the bytes written. */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (error) {
          if ((error as { code?: string }).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

describe('a full disk under the SQLite store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-full-'));
  const data = join(dir, 'data');
  const filler = join(dir, 'filler');
  let server: ServerProcess;
  let sender: ProvisionedSender;

  before(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir]);
    server = await startServer(['--data', data, '--demo', 'false', '--requests-per-second', '0']);
    sender = await provisionSender(['--data', data], 'Full', 1_000_000);
  });
  after(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    execFileSync('umount', [dir]);
    rmdirSync(dir);
  });

  it('answers every request while the disk is full, recovers by itself, and stops on SIGTERM', async () => {
    const send = { api_key: sender.apiKey, sentto: '905321234567', title: 'ACME', text: 'Hello' };
    assert.equal((await post(`${server.url}/sms/send`, send)).body.result_code, 'TS-1024');
    assert.ok(fill(filler) > 0);

    // Sends until the store cannot take one (WAL space already made may take a few first).
    let refused: Awaited<ReturnType<typeof post>> | null = null;
    for (let i = 0; i < 3000 && refused === null; i++) {
      const answer = await post(`${server.url}/sms/send`, send);
      if (answer.body.result_code !== 'TS-1024') refused = answer;
    }
    assert.ok(refused, 'a send failed once the disk was full');
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.result_code, 'SRV-ERR');
    assert.equal(refused.body.result, false);
    assert.equal(refused.retryAfter, '5');
    // Until a write goes through again, the process says it is not ready.
    const ready = await fetch(`${server.url}/readyz`);
    const readyBody = (await ready.json()) as { checks: { store: { ok: boolean; detail?: string } } };
    assert.equal(ready.status, 503);
    assert.match(readyBody.checks.store.detail ?? '', /cannot write.*disk is full/);

    // What SQLite gave back meanwhile (a WAL reset, a failed write's pages) is taken again.
    fill(`${filler}-2`);
    // Every request after it is answered too (the wedge: they all hung), in the envelope:
    // refused, or accepted when SQLite could write into WAL space it already had.
    const next = await Promise.all(Array.from({ length: 20 }, () => post(`${server.url}/sms/send`, send)));
    for (const answer of next) {
      assert.ok(
        (answer.status === 503 && answer.body.result_code === 'SRV-ERR') ||
          (answer.status === 200 && answer.body.result_code === 'TS-1024'),
        JSON.stringify(answer),
      );
    }
    const balance = await post(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(balance.body.result_code, 'TS-1040', 'reads are answered');
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'the process can recover: no restart asked');

    // Space comes back: sends are accepted again, with no restart.
    rmSync(filler);
    rmSync(`${filler}-2`);
    const back = await waitFor('a send accepted again', async () => {
      const answer = await post(`${server.url}/sms/send`, send);
      return answer.body.result_code === 'TS-1024' && answer;
    });
    assert.equal(back.status, 200);
    await waitFor('ready again', async () => (await fetch(`${server.url}/readyz`)).status === 200);
    assert.doesNotMatch(server.output(), /cannot rollback/);
    assert.match(server.output(), /the store cannot take requests/);

    server.child.kill('SIGTERM');
    const code = await waitFor('the process ended by SIGTERM', () => server.child.exitCode !== null && server.exited, {
      timeoutMs: 40_000,
    });
    assert.equal(typeof (await code), 'number');
  });
});
