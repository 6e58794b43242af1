import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { carrierConfig, message, startCarrier } from '../adapters/carriers/smpp/smpp-harness.js';
import { waitFor } from '../helpers/wait-for.js';

/** The command as users run it: bin/haberci smsc-sim, stopped with SIGTERM. */
describe('haberci smsc-sim', () => {
  it('serves SMPP and /stats on 127.0.0.1 and prints totals on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['bin/haberci', 'smsc-sim', '--port', '0', '--stats-port', '0', '--receipt-delay-ms', '5-10'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor('smsc-sim to print its stats address', () => /stats on http/.test(out));
      const smppPort = Number(/127\.0\.0\.1:(\d+)\n/.exec(out)?.[1]);
      const statsUrl = /(http:\/\/127\.0\.0\.1:\d+\/stats)/.exec(out)?.[1] ?? 'missing';
      const { carrier, listener } = await startCarrier(carrierConfig([smppPort]));
      assert.equal((await carrier.submit(message('905321234567'))).kind, 'accepted');
      await waitFor('the delivery receipt', () => listener.reports.length > 0);
      await carrier.stop();
      const stats = (await (await fetch(statsUrl)).json()) as { submits: number; receiptResps: number };
      assert.deepEqual([stats.submits, stats.receiptResps], [1, 1]);
      // A request target that is no URL is refused, and the simulator keeps serving.
      const statsPort = Number(new URL(statsUrl).port);
      const statusLine = await new Promise<string>((resolve, reject) => {
        const socket = connect(statsPort, '127.0.0.1', () => socket.write('GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n'));
        socket.once('data', (chunk: Buffer) => {
          resolve(chunk.toString().split('\r\n')[0] ?? '');
          socket.destroy();
        });
        socket.once('error', reject);
      });
      assert.equal(statusLine, 'HTTP/1.1 400 Bad Request');
      assert.equal((await fetch(statsUrl)).status, 200);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0);
      assert.match(out, /totals \{"binds":1,.*"submits":1,/);
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses a bad option with exit code 1', async () => {
    const child = spawn(process.execPath, ['bin/haberci', 'smsc-sim', '--throttle-share', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(err, /must be a number from 0 to 1/);
  });
});
