/**
 * RET by reply end to end (issue 34): `haberci smsc-sim` sends a mobile-originated "İptal"
 * from a consented number to the account's short code over SMPP, the real server records
 * RET for that sender, and the next commercial /sms/send through HTTP leaves it out (not
 * sent, not charged) while a consented number that did not reply is sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, binPath, childEnv, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

async function startSimulator(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [binPath, 'smsc-sim', '--port', '0', ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor('smsc-sim to start', () => /127\.0\.0\.1:(\d+)\n/.test(out));
  return { child, port: Number(/127\.0\.0\.1:(\d+)\n/.exec(out)?.[1]) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('RET by reply: smsc-sim MO -> haberci -> the next commercial send', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-iys-ret-'));
  const replier = '905321112233';
  const quiet = '905321112244';
  let sim: { child: ChildProcess; port: number };
  let server: ServerProcess;
  let sender: ProvisionedSender;

  before(async () => {
    sim = await startSimulator([
      '--inbound-every-ms',
      '200',
      '--inbound-from',
      '+90 532 111 22 33',
      '--inbound-to',
      '4609',
      '--inbound-text',
      'İptal',
    ]);
    writeFileSync(
      join(dir, 'smpp.json'),
      JSON.stringify({
        connections: [{ name: 'sim', host: '127.0.0.1', port: sim.port, systemId: 'haberci', password: 'pw' }],
        defaultRoute: 'sim',
      }),
    );
    await admin(['store', 'init', '--data', dir]);
    sender = await provisionSender(['--data', dir], 'Brand', 100);
    await admin(['inbound-route', 'add', '--account', sender.accountId, '--number', '4609', '--data', dir]);
    server = await startServer(['--data', dir, '--smpp-config', join(dir, 'smpp.json'), '--demo', 'false']);
  });

  after(async () => {
    await stop(server.child);
    await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('records RET for the replying number and leaves it out of the next commercial send', async () => {
    const consents = [replier, quiet].map((recipient) => ({
      recipient,
      status: 'ONAY',
      recipient_type: 'BIREYSEL',
      source: 'HS_WEB',
      consent_date: '2026-01-01 10:00:00',
    }));
    const added = await postJson(`${server.url}/iys/consent/add`, { api_key: sender.apiKey, consents });
    assert.equal(added.body.added, 2, JSON.stringify(added.body));
    // The simulator's replies keep arriving; the first one stored turns the consent to RET.
    await waitFor(
      'the reply to record RET',
      async () =>
        (await postJson(`${server.url}/iys/consent/status`, { api_key: sender.apiKey, recipient: replier })).body
          .status === 'RET',
      { timeoutMs: 20_000 },
    );
    const status = await postJson(`${server.url}/iys/consent/status`, { api_key: sender.apiKey, recipient: quiet });
    assert.equal(status.body.status, 'ONAY', 'the number that did not reply keeps its consent');
    const sent = await postJson(`${server.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: `${replier},${quiet}`,
      title: 'ACME',
      text: 'Kampanya',
      iys: 1,
    });
    assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
    assert.equal(sent.body.iys_skipped, 1);
    assert.equal(sent.body.success_count, 1);
    assert.equal(sent.body.number_of_sms, 1);
    const balance = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(balance.body.balance_main, 99, JSON.stringify(balance.body));
  });
});
