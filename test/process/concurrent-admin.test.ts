/**
 * The admin CLI works while the server runs (interfaces.md): top-ups committed by other
 * processes while sends are being charged never make a send fail, and the balance adds up.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminProcess, postJson, provisionSender, startServer } from '../helpers/server-process.js';

describe('admin CLI writing while the server sends', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-concurrent-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers every send and applies every top-up', async () => {
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
    try {
      const { accountId: id, apiKey: key } = await provisionSender(['--data', dir], 'Busy', 1000);
      const codes: string[] = [];
      const sends = (async () => {
        for (let round = 0; round < 30; round++) {
          const batch = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              postJson(`${server.url}/sms/send`, {
                api_key: key,
                sentto: `90532${String(round * 10 + i).padStart(7, '0')}`,
                title: 'ACME',
                text: 'x',
                sms_lang: 0,
              }),
            ),
          );
          codes.push(...batch.map((a) => String(a.body.result_code)));
        }
      })();
      const topups = (async () => {
        for (let i = 0; i < 8; i++)
          await adminProcess(['account', 'topup', '--id', id, '--amount', '10', '--data', dir]);
      })();
      await Promise.all([sends, topups]);
      assert.equal(codes.length, 300);
      assert.deepEqual([...new Set(codes)], ['TS-1024']);
      const shown = await adminProcess(['account', 'show', '--id', id, '--data', dir]);
      assert.equal(shown.balance_main, 1000 + 80 - 300);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }
  });
});
