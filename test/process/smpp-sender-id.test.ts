/**
 * Turkish letters in sender IDs (issue 30, item 1), through the processes: `admin sender-id
 * add` takes ABCDEFGHIŞ (9 + 2 = 11) and refuses ABCDEFGHIJŞ (12), `/sms/send` answers
 * TS-1029 for the latter, and `haberci smsc-sim` receives the former as each SMPP
 * connection's `senderIdEncoding` says: ASCII (the default) on one, GSM 7-bit with the
 * Turkish single shift on the other.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminFails, adminOk } from '../helpers/cli.js';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { startSimulator, stop } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import { waitFor } from '../helpers/wait-for.js';

describe('Turkish sender IDs on the SMPP wire: haberci serve against haberci smsc-sim', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-sender-wire-'));
  let sim: Simulator;
  let server: ServerProcess;
  let apiKey = '';
  let accountId = '';

  before(async () => {
    sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '20-50']);
    const connection = (name: string, prefix: string, extra: object) => ({
      name,
      host: '127.0.0.1',
      port: sim.port,
      systemId: 'haberci',
      password: 'pw',
      prefixes: [prefix],
      ...extra,
    });
    writeFileSync(
      join(dir, 'smpp.json'),
      JSON.stringify({
        connections: [
          connection('ascii-only', '90532', {}),
          connection('gsm-coded', '90533', { senderIdEncoding: 'gsm7-turkish' }),
        ],
        defaultRoute: 'ascii-only',
      }),
    );
    server = await startServer([
      '--data',
      dir,
      '--smpp-config',
      join(dir, 'smpp.json'),
      '--demo',
      'false',
      '--requests-per-second',
      '0',
    ]);
    const sender = await provisionSender(['--data', dir], 'Sender wire', 100);
    apiKey = sender.apiKey;
    accountId = sender.accountId;
  });

  after(async () => {
    await stop(server.child);
    await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (to: string, title: string) =>
    postJson(`${server.url}/sms/send`, { api_key: apiKey, sentto: to, title, text: 'Merhaba', sms_lang: 0 });

  const sourceAt = (to: string) =>
    waitFor(
      `the simulator to receive the submit to ${to}`,
      async () => {
        const all = (await (await fetch(sim.stats.replace(/\/stats$/, `/submits?to=${to}`))).json()) as {
          source: string;
          source_hex: string;
          message_id: string | null;
        }[];
        return all.find((s) => s.message_id !== null);
      },
      { timeoutMs: 30_000 },
    );

  it('takes a title that counts 11 with a Turkish letter, refuses one that counts 12 (admin and /sms/send)', async () => {
    const added = await adminOk(['sender-id', 'add', '--account', accountId, '--title', 'ABCDEFGHIŞ', '--data', dir]);
    assert.equal(added.title, 'ABCDEFGHIŞ');
    assert.match(
      await adminFails(['sender-id', 'add', '--account', accountId, '--title', 'ABCDEFGHIJŞ', '--data', dir]),
      /at most 11 characters \(Turkish letters count as two\); this one counts 12/,
    );
    const refused = await send('905321110021', 'ABCDEFGHIJŞ');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.result_code, 'TS-1029');
    const accepted = await send('905321110022', 'ABCDEFGHIŞ');
    assert.equal(accepted.body.result_code, 'TS-1024', JSON.stringify(accepted.body));
  });

  it('sends the sender ID as ASCII by default and as GSM 7-bit with the Turkish shift where configured', async () => {
    const ascii = await sourceAt('905321110022');
    assert.equal(ascii.source, 'ABCDEFGHIS');
    assert.equal(ascii.source_hex, Buffer.from('ABCDEFGHIS').toString('hex'));
    const coded = await send('905331110023', 'ABCDEFGHIŞ');
    assert.equal(coded.body.result_code, 'TS-1024', JSON.stringify(coded.body));
    // ESC (0x1b) then 0x53: Ş in the Turkish single shift table.
    assert.equal((await sourceAt('905331110023')).source_hex, '4142434445464748491b53');
    // An ASCII title goes as it is on both links.
    assert.equal((await send('905331110024', 'ACME')).body.result_code, 'TS-1024');
    assert.equal((await sourceAt('905331110024')).source, 'ACME');
  });
});
