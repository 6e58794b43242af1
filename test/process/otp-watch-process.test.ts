/**
 * The OTP conversion watch in a real `serve` (SQLite): the job the dispatch thread runs
 * (here every second, with no grace) holds a destination prefix pumped over HTTP (many
 * codes, none verified) and not the prefix whose codes are verified; /metrics shows the hold
 * (`haberci_otp_held_prefixes`, the metric docs/alerts.yml watches) and the log says so
 * with the prefix, not a number (codes in logs: secrets-in-logs.test.ts); a held prefix is
 * refused (TS-1096, 403); `haberci admin otp holds` lists it and `haberci admin otp release`
 * lets codes go again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { opsAddress, sample, scrapeUntil } from '../helpers/metrics-text.js';

describe('OTP conversion watch in serve', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-otp-watch-'));
  let server: ServerProcess;
  let sender: ProvisionedSender;
  let ops = '';

  before(async () => {
    server = await startServer([
      '--data',
      dir,
      '--demo',
      'false',
      '--ops-port',
      '0',
      '--requests-per-second',
      '0',
      '--otp-watch-every-ms',
      '1000',
      '--otp-watch-grace-ms',
      '0',
    ]);
    ops = opsAddress(server.output());
    sender = await provisionSender(['--data', dir], 'Otp Watch', 200);
  });
  after(async () => {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    rmSync(dir, { recursive: true, force: true });
  });

  const send = async (mobile: string): Promise<{ status: number; body: Record<string, unknown> }> =>
    postJson(`${server.url}/otp/send`, { api_key: sender.apiKey, mobile });

  it('holds the pumped prefix, alerts through /metrics and the log, and the provider releases it', async () => {
    assert.notEqual(ops, '', server.output());
    for (let i = 0; i < 5; i += 1) {
      const sent = await send(`90542300000${i}`);
      assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
      const checked = await postJson(`${server.url}/otp/verify`, {
        api_key: sender.apiKey,
        sms_id: sent.body.sms_id,
        code: sent.body.otp_code,
      });
      assert.equal(checked.body.verified, true);
    }
    // Exactly the watch's minimum (20): the watch runs every second, so a 21st send could
    // already meet the hold on a slow machine.
    for (let i = 0; i < 20; i += 1) {
      const sent = await send(`9053230000${String(i).padStart(2, '0')}`);
      assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
    }
    await scrapeUntil(ops, 'the watch holds a prefix', (text) => sample(text, 'haberci_otp_held_prefixes') === 1);
    const refused = await send('905329999999');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.result_code, 'TS-1096', JSON.stringify(refused.body));
    assert.equal((await send('905429999999')).body.result_code, 'TS-1024');
    const log = server.output();
    assert.match(log, /otp watch: held a destination prefix/);
    assert.match(log, /"prefix":"90532"/);
    assert.equal(log.includes('905323000000'), false, 'no number in the log');

    const holds = (await admin(['otp', 'holds', '--account', sender.accountId, '--data', dir])) as unknown as {
      prefix: string;
      key_id: number;
      sent: number;
      verified: number;
    }[];
    assert.deepEqual(
      holds.map((h) => [h.prefix, h.key_id, h.verified]),
      [['90532', Number(sender.keyId), 0]],
    );
    assert.ok((holds[0]?.sent ?? 0) >= 20);
    const released = await admin(['otp', 'release', '--key', sender.keyId, '--prefix', '90532', '--data', dir]);
    assert.equal(released.released, 1);
    assert.equal((await send('905329999999')).body.result_code, 'TS-1024');
    await scrapeUntil(ops, 'no hold stands', (text) => sample(text, 'haberci_otp_held_prefixes') === 0);
  });
});
