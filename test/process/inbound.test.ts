/**
 * Inbound messages end to end: `haberci smsc-sim` sends mobile-originated messages, the
 * real server stores them, routes them by destination to the account that owns it, and
 * announces them to that account's webhook as signed `sms.received` events.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sign } from '../../src/domain/webhook.js';
import { admin, binPath, childEnv, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait-for.js';

async function startSimulator(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [binPath, 'smsc-sim', '--port', '0', ...args], {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  // On time-out fall through to the error below, which shows the output.
  await waitFor('smsc-sim to print its port', () => /127\.0\.0\.1:(\d+)\n/.test(out)).catch(() => undefined);
  const port = Number(/127\.0\.0\.1:(\d+)\n/.exec(out)?.[1]);
  if (!port) throw new Error(`smsc-sim did not start: ${out}`);
  return { child, port };
}

/** Incoming messages the server stored for no account (their destination has no route). */
function unrouted(dir: string): number {
  // A writable connection: a read-only one cannot read a WAL store another process writes.
  const db = new BetterSqlite3(join(dir, 'haberci.sqlite'), { fileMustExist: true });
  try {
    return Number(
      (db.prepare('SELECT count(*) AS n FROM inbound_messages WHERE account_id IS NULL').get() as { n: number }).n,
    );
  } finally {
    db.close();
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('inbound messages: smsc-sim -> haberci -> sms.received webhook', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-inbound-'));
  const secret = 'inbound-secret';
  let receiver: Receiver;
  let sim: { child: ChildProcess; port: number };
  let server: ServerProcess;
  let accountId = 0;

  before(async () => {
    receiver = await startReceiver();
    sim = await startSimulator([
      '--inbound-every-ms',
      '150',
      '--inbound-from',
      '+90 532 111 22 33',
      '--inbound-to',
      '4444',
      '--inbound-text',
      'Merhaba haberci',
    ]);
    writeFileSync(
      join(dir, 'smpp.json'),
      JSON.stringify({
        connections: [{ name: 'sim', host: '127.0.0.1', port: sim.port, systemId: 'haberci', password: 'pw' }],
        defaultRoute: 'sim',
      }),
    );
    // The route and the key exist before the server starts, so every message is routed.
    await admin(['store', 'init', '--data', dir]);
    const account = await admin(['account', 'create', '--name', 'Inbound', '--data', dir]);
    accountId = Number(account.id);
    await admin([
      'key',
      'create',
      '--account',
      String(accountId),
      '--webhook-url',
      `${receiver.url}/hook`,
      '--webhook-secret',
      secret,
      '--data',
      dir,
    ]);
    await admin(['inbound-route', 'add', '--account', String(accountId), '--number', '4444', '--data', dir]);
    server = await startServer([
      '--data',
      dir,
      '--smpp-config',
      join(dir, 'smpp.json'),
      '--demo',
      'false',
      '--webhook-allow-private',
      'true',
    ]);
  });

  after(async () => {
    await stop(server.child);
    await stop(sim.child);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores routed messages and delivers them signed as sms.received', async () => {
    // On time-out the assertion below says how many came.
    await waitFor('three sms.received events', () => receiver.requests.length >= 3, {
      timeoutMs: 20_000,
      intervalMs: 50,
    }).catch(() => undefined);
    assert.ok(receiver.requests.length >= 3, `received ${receiver.requests.length} events`);
    const ids = new Set<number>();
    for (const request of receiver.requests) {
      assert.equal(request.headers['x-service-signature'], sign(request.body, secret));
      const event = JSON.parse(request.body) as {
        event_type: string;
        timestamp: string;
        data: Record<string, unknown>;
      };
      assert.equal(event.event_type, 'sms.received');
      assert.equal(request.headers['x-service-timestamp'], event.timestamp);
      assert.equal(event.data.from, '905321112233');
      assert.equal(event.data.to, '4444');
      assert.equal(event.data.text, 'Merhaba haberci');
      assert.equal(event.data.status, undefined);
      ids.add(Number(event.data.sms_id));
    }
    const listed = (await admin([
      'inbound',
      'list',
      '--account',
      String(accountId),
      '--limit',
      '1000',
      '--data',
      dir,
    ])) as { messages: { sms_id: number; text: string }[] };
    for (const id of ids)
      assert.ok(
        listed.messages.some((m) => m.sms_id === id),
        `message ${id} is stored for the account`,
      );
  });

  it('passes over a newer key whose webhook does not take sms.received (key --webhook-events)', async () => {
    const other = await startReceiver();
    try {
      await admin([
        'key',
        'create',
        '--account',
        String(accountId),
        '--webhook-url',
        `${other.url}/hook`,
        '--webhook-events',
        'sms.delivered,sms.failed',
        '--data',
        dir,
      ]);
      const before = receiver.requests.length;
      await waitFor('three more sms.received events', () => receiver.requests.length >= before + 3, {
        timeoutMs: 20_000,
        intervalMs: 50,
      }).catch(() => undefined);
      assert.ok(receiver.requests.length >= before + 3, 'the older key still gets sms.received');
      assert.equal(other.requests.length, 0);
    } finally {
      await other.close();
    }
  });

  it('routes nothing to an account once its route is removed', async () => {
    assert.deepEqual(await admin(['inbound-route', 'remove', '--number', '4444', '--data', dir]), { removed: true });
    const before = (await admin([
      'inbound',
      'list',
      '--account',
      String(accountId),
      '--limit',
      '1000',
      '--data',
      dir,
    ])) as { messages: unknown[] };
    const strayBefore = unrouted(dir);
    await waitFor('more messages to the number', () => unrouted(dir) > strayBefore);
    // Control: messages to 4444 kept arriving in that time; the server stored them for no account.
    assert.ok(unrouted(dir) > strayBefore, 'messages to the number arrived during the wait');
    const afterwards = (await admin([
      'inbound',
      'list',
      '--account',
      String(accountId),
      '--limit',
      '1000',
      '--data',
      dir,
    ])) as { messages: unknown[] };
    assert.equal(afterwards.messages.length, before.messages.length);
  });
});
