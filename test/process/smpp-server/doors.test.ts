/**
 * The SMPP server's doors through a real `haberci serve` (issue 42, item 3): under an
 * open-files limit the caps do not fit, it warns at start; `--smpp-server-max-connections-per-address`
 * closes a connection past it at once; and SIGTERM with a TCP connection to the TLS port that
 * never starts its handshake (and raw connections that never bound) exits 0, within the stop's
 * deadline (`--drain-ms 0`: 15 s, after which it would exit 1), the connections closed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { binPath, childEnv, serverReadyMs } from '../../helpers/server-process.js';
import { smppPortOf } from '../../helpers/esme.js';
import { selfSigned } from '../../helpers/self-signed.js';
import { waitFor } from '../../helpers/wait-for.js';

/** A TCP connection from `from` that sends nothing; `closed()` once the server closed it. */
async function silentFrom(port: number, from: string): Promise<{ socket: Socket; closed(): boolean }> {
  let closed = false;
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed: () => closed };
}

describe('SMPP server doors through the process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-doors-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const tls = selfSigned();

  it('warns of caps over the open-files limit, caps connections per address, and stops at once past a silent TLS connection', async () => {
    const args = [
      binPath,
      'serve',
      ...['--port', '0', '--data', dir, '--demo', 'false', '--drain-ms', '0'],
      ...['--smpp-server-port', '0', '--smpp-server-tls-port', '0'],
      ...['--smpp-server-tls-cert', tls.cert, '--smpp-server-tls-key', tls.key],
      ...['--smpp-server-max-connections', '20', '--smpp-server-max-connections-per-address', '2'],
    ];
    // 4096 open files: under the default --max-connections (10,000) alone.
    const child = spawn('sh', ['-c', 'ulimit -n 4096 && exec "$0" "$@"', process.execPath, ...args], {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor('the server ready', () => /haberci ready on/.test(out) || child.exitCode !== null, {
        timeoutMs: serverReadyMs,
      });
      assert.match(out, /haberci ready on/, out);
      assert.match(out, /the connection caps do not fit under the open-files limit \(4096\)/);

      const plain = smppPortOf(out);
      const secure = smppPortOf(out, true);
      const first = await silentFrom(plain, '127.0.0.1');
      const second = await silentFrom(plain, '127.0.0.1');
      const third = await silentFrom(plain, '127.0.0.1');
      await waitFor('the third connection from one address closed', () => third.closed());
      const handshakeNever = await silentFrom(secure, '127.0.0.2');
      assert.ok(!first.closed() && !second.closed() && !handshakeNever.closed());

      child.kill('SIGTERM');
      assert.equal(await exited, 0, out);
      assert.match(out, /"msg":"stopped"/);
      await waitFor(
        'the silent connections closed',
        () => first.closed() && second.closed() && handshakeNever.closed(),
      );
    } finally {
      child.kill('SIGKILL');
    }
  });
});
