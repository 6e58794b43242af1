/**
 * Readiness of a real `haberci serve`: ready on a fresh store; unready while its SMSC is away
 * (the dispatch thread's SMPP connection unbound) and ready again once it rebinds; on
 * PostgreSQL, unready while the database refuses connections and ready again after.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { startSimulator, stop } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import { waitFor as poll } from '../helpers/wait-for.js';

interface Probe {
  status: number;
  body: { status: string; checks?: Record<string, { ok: boolean; detail?: string }> };
}

async function probe(server: ServerProcess, path: '/healthz' | '/readyz'): Promise<Probe> {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: (await response.json()) as Probe['body'] };
}

async function waitFor(
  what: string,
  server: ServerProcess,
  test: (p: Probe) => boolean,
  timeoutMs = 20_000,
): Promise<Probe> {
  let last: Probe | null = null;
  try {
    return await poll(
      what,
      async () => {
        last = await probe(server, '/readyz');
        return test(last) ? last : undefined;
      },
      { timeoutMs, intervalMs: 50 },
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last /readyz: ${JSON.stringify(last)}`);
  }
}

describe('readiness of serve with the simulator carrier', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-ready-'));
  let server: ServerProcess;
  before(async () => {
    server = await startServer(['--data', dir, '--demo', 'false']);
  });
  after(async () => {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('is alive and ready on a fresh store, with no key', async () => {
    assert.deepEqual(await probe(server, '/healthz'), { status: 200, body: { status: 'ok' } });
    assert.deepEqual(await probe(server, '/readyz'), {
      status: 200,
      body: { status: 'ready', checks: { store: { ok: true }, migrations: { ok: true } } },
    });
  });
});

describe('readiness of serve with an SMPP carrier', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-ready-smpp-'));
  let sim: Simulator;
  let server: ServerProcess;
  before(async () => {
    sim = await startSimulator(['--port', '0']);
    const connection = {
      name: 'sim',
      host: '127.0.0.1',
      port: sim.port,
      systemId: 'haberci',
      password: 'pw',
      enquireLinkMs: 500,
      reconnectMinMs: 50,
      reconnectMaxMs: 200,
    };
    writeFileSync(join(dir, 'smpp.json'), JSON.stringify({ connections: [connection], defaultRoute: 'sim' }));
    server = await startServer(['--data', dir, '--smpp-config', join(dir, 'smpp.json'), '--demo', 'false']);
  });
  after(async () => {
    await stop(server.child);
    await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('is unready while the SMSC is away and ready again once it is back', async () => {
    const ready = await waitFor('the SMPP connection to bind', server, (p) => p.status === 200);
    assert.deepEqual(ready.body.checks?.carrier, { ok: true, detail: '1 of 1 carrier connections bound' });
    sim.child.kill('SIGKILL');
    await new Promise((r) => sim.child.once('exit', r));
    const away = await waitFor('unready once the SMSC is gone', server, (p) => p.status === 503);
    assert.equal(away.body.status, 'unready');
    assert.deepEqual(away.body.checks?.carrier, { ok: false, detail: '0 of 1 carrier connections bound' });
    assert.equal(away.body.checks?.store?.ok, true, 'only the carrier failed');
    assert.equal((await probe(server, '/healthz')).status, 200, 'alive all along');
    sim = await startSimulator(['--port', String(sim.port)]);
    const back = await waitFor('ready once the SMSC is back', server, (p) => p.status === 200);
    assert.equal(back.body.checks?.carrier?.ok, true);
  });
});

const pgUrl = process.env.HABERCI_TEST_DATABASE ?? '';

describe('readiness of serve on PostgreSQL', () => {
  const skip = pgUrl === '' ? 'HABERCI_TEST_DATABASE is not set' : false;
  const database = `haberci_ready_${randomBytes(5).toString('hex')}`;
  let control: pg.Client | null = null;
  let server: ServerProcess | null = null;

  /** The same server and role, another database: one this test may close to connections. */
  const scratchUrl = (): string => {
    const url = new URL(pgUrl);
    url.pathname = `/${database}`;
    return url.toString();
  };

  after(async () => {
    if (server) await stop(server.child);
    if (control) {
      await control.query(`alter database ${database} allow_connections true`).catch(() => undefined);
      await control.query(`drop database if exists ${database} with (force)`);
      await control.end();
    }
  });

  it('is unready while the database refuses connections and ready again after', { skip }, async () => {
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await control.query(`create database ${database}`);
    server = await startServer(['--database', scratchUrl(), '--demo', 'false']);
    const running = server;
    assert.equal((await waitFor('ready', running, (p) => p.status === 200)).body.status, 'ready');
    // The database takes no new connection, and those open are ended: the store is away.
    await control.query(`alter database ${database} allow_connections false`);
    await control.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
    const away = await waitFor('unready while the database is closed', running, (p) => p.status === 503);
    assert.equal(away.body.checks?.store?.ok, false);
    assert.match(String(away.body.checks?.store?.detail), /does not answer/);
    assert.equal((await probe(running, '/healthz')).status, 200, 'alive all along');
    await control.query(`alter database ${database} allow_connections true`);
    const back = await waitFor('ready again', running, (p) => p.status === 200);
    assert.deepEqual(back.body.checks, { store: { ok: true }, migrations: { ok: true } });
  });
});
