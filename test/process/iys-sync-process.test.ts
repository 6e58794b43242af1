/**
 * The sync with İYS through real processes, on both stores: `haberci iys-sim`, `haberci
 * serve` and `haberci admin iys configure` pointing the account at the simulator. Consents
 * added over HTTP arrive at the simulator; a RET a recipient makes on İYS (the simulator's
 * /sim/change) is pulled, answered by /iys/consent/status and honoured by the next commercial
 * send; during an outage of the simulator a consent stays pending (its error shown by `admin
 * iys show`), survives a restart of serve, and arrives once the simulator answers again.
 * The İYS password is never in serve's output.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, binPath, childEnv, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

const password = 'Iys-Process-Secret-77';

async function startIysSim(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [binPath, 'iys-sim', '--port', '0', '--username', 'api-user', '--password', password],
    { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await waitFor('iys-sim to start', () => /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]);
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const stores: { name: string; skip: string | false; pg: boolean }[] = [
  { name: 'sqlite', skip: false, pg: false },
  {
    name: 'postgres',
    skip: postgresUrl() === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false,
    pg: true,
  },
];

for (const kind of stores) {
  describe(`İYS sync through the processes (${kind.name})`, { skip: kind.skip }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-iys-sync-'));
    let store: string[] = [];
    let serveArgs: string[] = [];
    let sim: { child: ChildProcess; url: string };
    let server: ServerProcess;
    const outputs: string[] = [];
    let sender: ProvisionedSender;
    // Before the schema's own after(): the processes go first, then their schema.
    after(async () => {
      if (server) {
        outputs.push(server.output());
        await stop(server.child);
      }
      if (sim) await stop(sim.child);
      rmSync(dir, { recursive: true, force: true });
    });

    const schema = kind.pg ? schemaForSuite() : null;

    const atSim = async (recipient: string): Promise<string | undefined> => {
      const res = await fetch(`${sim.url}/sim/consents?iysCode=700001&brandCode=700002&recipient=${recipient}`);
      return ((await res.json()) as { list: { status: string }[] }).list[0]?.status;
    };
    const sync = async (): Promise<Record<string, unknown>> =>
      (await admin(['iys', 'show', '--account', sender.accountId, ...store])).sync as Record<string, unknown>;
    const add = (recipient: string) =>
      postJson(`${server.url}/iys/consent/add`, {
        api_key: sender.apiKey,
        consents: [
          {
            recipient,
            status: 'ONAY',
            recipient_type: 'BIREYSEL',
            source: 'HS_WEB',
            consent_date: '2026-01-01 10:00:00',
          },
        ],
      });

    before(async () => {
      if (kind.skip) return;
      const keyFile = join(dir, 'secret.key');
      store = schema ? ['--database', schema.url] : ['--data', dir];
      serveArgs = [...store, '--demo', 'false', '--secret-key-file', keyFile, '--iys-sync-ms', '200'];
      serveArgs.push('--iys-retry-max-ms', '1000');
      sim = await startIysSim();
      server = await startServer(serveArgs);
      sender = await provisionSender(store, 'Brand', 100);
      await admin([
        'iys',
        'configure',
        '--account',
        sender.accountId,
        '--iys-code',
        '700001',
        '--brand-code',
        '700002',
        '--url',
        sim.url,
        '--username',
        'api-user',
        '--password',
        password,
        '--secret-key-file',
        keyFile,
        ...store,
      ]);
    });

    it('pushes consents added over HTTP to İYS', async () => {
      for (const n of ['905321230001', '905321230002']) assert.equal((await add(n)).body.added, 1);
      await waitFor('the consents at İYS', async () => (await atSim('905321230002')) === 'ONAY');
      assert.equal(await atSim('905321230001'), 'ONAY');
      const state = await waitFor('both synced', async () => {
        const s = await sync();
        return s.synced === 2 ? s : undefined;
      });
      assert.equal(state.pending, 0);
    });

    it('pulls a RET made on İYS: status answers RET and the next commercial send leaves the number out', async () => {
      const made = await postJson(`${sim.url}/sim/change`, {
        iysCode: '700001',
        brandCode: '700002',
        recipient: '+905321230001',
        status: 'RET',
        consentDate: '2026-06-01 12:00:00',
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      await waitFor(
        'the RET made on İYS to be in force',
        async () =>
          (await postJson(`${server.url}/iys/consent/status`, { api_key: sender.apiKey, recipient: '905321230001' }))
            .body.status === 'RET',
      );
      const status = await postJson(`${server.url}/iys/consent/status`, {
        api_key: sender.apiKey,
        recipient: '905321230001',
      });
      assert.equal(status.body.source, 'IYS');
      const sent = await postJson(`${server.url}/sms/send`, {
        api_key: sender.apiKey,
        sentto: '905321230001,905321230002',
        title: 'ACME',
        text: 'Kampanya',
        iys: 1,
      });
      assert.equal(sent.body.result_code, 'TS-1024', JSON.stringify(sent.body));
      assert.equal(sent.body.iys_skipped, 1);
      assert.equal(sent.body.success_count, 1);
    });

    it('keeps a consent through an outage of İYS and a restart of serve, and pushes it once İYS answers', async () => {
      assert.equal((await postJson(`${sim.url}/sim/outage`, { ms: 600_000 })).status, 200);
      assert.equal((await add('905321230003')).body.added, 1);
      const pending = await waitFor('the push to fail and be kept', async () => {
        const s = await sync();
        return s.pending === 1 && /503/.test(String(s.last_error)) ? s : undefined;
      });
      // The first number's record is now the RET pulled from İYS.
      assert.equal(pending.synced, 1);
      assert.equal(pending.from_iys, 1);
      outputs.push(server.output());
      await stop(server.child);
      server = await startServer(serveArgs);
      assert.equal((await sync()).pending, 1, 'still pending after the restart');
      assert.equal(await atSim('905321230003'), undefined);
      await postJson(`${sim.url}/sim/outage`, { ms: 0 });
      await waitFor('the consent to reach İYS after the outage', async () => (await atSim('905321230003')) === 'ONAY');
      const state = await waitFor('synced', async () => {
        const s = await sync();
        return s.pending === 0 ? s : undefined;
      });
      assert.equal(state.synced, 2);
      const stats = (await (await fetch(`${sim.url}/sim/stats`)).json()) as { unavailable: number };
      assert.ok(stats.unavailable > 0, 'the outage was met');
    });

    it('never prints the İYS password', () => {
      outputs.push(server.output());
      const all = outputs.join('\n');
      assert.match(all, /iys:/, 'the sync logged');
      assert.equal(all.includes(password), false);
    });
  });
}
