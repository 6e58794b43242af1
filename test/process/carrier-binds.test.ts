/**
 * The SMPP carrier's binds shared by a cluster, through real processes: three `haberci
 * serve` workers on one PostgreSQL schema against one `haberci smsc-sim`. With a
 * connection of maxBinds 1 the SMSC never sees more than one bind at once, and every
 * message accepted by a worker, whichever, is submitted once, by the bind's owner; killed with
 * SIGKILL, the owner's bind is taken by another worker after the lease, and every message
 * is delivered, none submitted twice beyond the dead owner's window. With maxBinds 2 two
 * of the three workers bind. No timings are asserted: counts the simulator kept.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { startSimulator, stop } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE' : false;
const windowSize = 5;
const leaseMs = 3000;
/** What a worker logs when it takes a place of the connection. */
const holds = 'holds a bind of the connection';

interface SimStats {
  binds: number;
  boundNow: number;
  peakBound: number;
  submits: number;
  peakSubmitsPerSecond: number;
}

/** `count` distinct mobile numbers (none ending in the simulator's 0000-0002, which fail or expire). */
function numbers(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `90${prefix}${String(1000 + i).padStart(7, '0')}`);
}

function cluster(maxBinds: number): {
  sim: () => Simulator;
  workers: ServerProcess[];
  sender: () => ProvisionedSender;
  stats: () => Promise<SimStats>;
  submitsPer: (wanted: readonly string[]) => Promise<Map<string, number>>;
  send: (worker: ServerProcess, to: readonly string[]) => Promise<number>;
} {
  const schema = schemaForSuite();
  const dir = mkdtempSync(join(tmpdir(), 'haberci-carrier-binds-'));
  const storeArgs = ['--database', schema.url];
  let sim: Simulator | undefined;
  let sender: ProvisionedSender | undefined;
  const workers: ServerProcess[] = [];

  before(async () => {
    if (skip) return;
    sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '20']);
    writeFileSync(
      join(dir, 'smpp.json'),
      JSON.stringify({
        connections: [
          {
            name: 'sim',
            host: '127.0.0.1',
            port: sim.port,
            systemId: 'haberci',
            password: 'pw',
            windowSize,
            maxSubmitsPerSecond: 40,
            maxBinds,
            reconnectMinMs: 100,
            reconnectMaxMs: 500,
          },
        ],
        defaultRoute: 'sim',
      }),
    );
    const args = [
      ...storeArgs,
      '--smpp-config',
      join(dir, 'smpp.json'),
      '--demo',
      'false',
      '--lease-ms',
      String(leaseMs),
    ];
    // The first migrates the schema; the other two start beside it.
    workers.push(await startServer(args));
    workers.push(...(await Promise.all([startServer(args), startServer(args)])));
    sender = await provisionSender(storeArgs, 'Cluster', 1_000_000);
  });

  after(async () => {
    for (const w of workers) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    if (sim) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  const simOf = (): Simulator => sim as Simulator;
  return {
    sim: simOf,
    workers,
    sender: () => sender as ProvisionedSender,
    stats: async () => (await (await fetch(simOf().stats)).json()) as SimStats,
    // How many submit_sm reached the SMSC for each of `wanted`, once each has come at least once.
    submitsPer: (wanted) =>
      waitFor(
        `${wanted.length} destinations at the SMSC`,
        async () => {
          const all = (await (await fetch(simOf().stats.replace(/\/stats$/, '/submits'))).json()) as {
            destination: string;
          }[];
          const want = new Set(wanted);
          const count = new Map<string, number>();
          for (const s of all)
            if (want.has(s.destination)) count.set(s.destination, (count.get(s.destination) ?? 0) + 1);
          return count.size === want.size ? count : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 200 },
      ),
    send: async (worker, to) => {
      const r = await postJson(`${worker.url}/group/send`, {
        api_key: (sender as ProvisionedSender).apiKey,
        title: 'ACME',
        sentto: to,
        text: 'Merhaba',
      });
      assert.equal(r.body.result_code, 'TS-1024', JSON.stringify(r.body));
      return Number(r.body.rapor_id);
    },
  };
}

describe('SMPP carrier binds across three workers on PostgreSQL, maxBinds 1', { skip }, () => {
  const c = cluster(1);

  it('binds once for the cluster and submits each message once, whichever worker accepted it', async () => {
    const to = numbers('532', 90);
    // Each worker accepts a third: two of them hold no bind and leave theirs queued for the owner.
    for (const [i, w] of c.workers.entries()) await c.send(w, to.slice(i * 30, i * 30 + 30));
    const counts = await c.submitsPer(to);
    const twice = [...counts.entries()].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no message submitted twice');
    const stats = await c.stats();
    assert.equal(stats.peakBound, 1, JSON.stringify(stats));
    assert.equal(c.workers.filter((w) => w.output().includes(holds)).length, 1, 'one worker holds the bind');
  });

  it('after the owner is killed, another worker takes the bind after the lease and every message is delivered', async () => {
    const owner = c.workers.find((w) => w.output().includes(holds));
    assert.ok(owner, 'a worker holds the bind');
    const survivors = c.workers.filter((w) => w !== owner);
    const to = numbers('533', 200);
    const raporid = await c.send(survivors[0] as ServerProcess, to);
    const before = (await c.stats()).submits;
    // Killed while submitting: some of the 200 went out, the rest are leased to it or queued.
    await waitFor('the owner to submit some of them', async () =>
      (await c.stats()).submits > before + 20 ? true : undefined,
    );
    owner.child.kill('SIGKILL');
    await owner.exited;
    const counts = await c.submitsPer(to);
    const twice = [...counts.values()].filter((n) => n > 1).length;
    // At most the dead owner's window (submits out when it died), and the submits answered
    // while its last outcomes were being written (docs/smpp.md, "Binds across a cluster").
    assert.ok(twice <= 2 * windowSize, `${twice} messages submitted twice`);
    assert.equal(survivors.filter((w) => w.output().includes(holds)).length, 1, 'one survivor took the bind');
    const stats = await c.stats();
    assert.equal(stats.peakBound, 1, JSON.stringify(stats));
    const summary = await waitFor(
      'every message delivered',
      async () => {
        const s = (
          await postJson(`${(survivors[1] as ServerProcess).url}/reports/basic`, {
            api_key: c.sender().apiKey,
            raporid,
          })
        ).body;
        return s.success_count === to.length ? s : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 300 },
    ).catch(async (error: unknown) => {
      const s = (
        await postJson(`${(survivors[1] as ServerProcess).url}/reports/basic`, { api_key: c.sender().apiKey, raporid })
      ).body;
      throw new Error(`${String(error)}: ${JSON.stringify(s)}`);
    });
    assert.equal(summary.total_numbers, to.length);
  });
});

describe('SMPP carrier binds across three workers on PostgreSQL, maxBinds 2', { skip }, () => {
  const c = cluster(2);

  it('makes two binds across three workers and submits each message once', async () => {
    await waitFor('two binds', async () => ((await c.stats()).boundNow === 2 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const to = numbers('534', 60);
    for (const [i, w] of c.workers.entries()) await c.send(w, to.slice(i * 20, i * 20 + 20));
    const counts = await c.submitsPer(to);
    assert.deepEqual(
      [...counts.entries()].filter(([, n]) => n > 1),
      [],
      'no message submitted twice',
    );
    const stats = await c.stats();
    assert.equal(stats.peakBound, 2, JSON.stringify(stats));
    assert.equal(c.workers.filter((w) => w.output().includes(holds)).length, 2, 'two workers hold a bind');
    // The worker holding none is ready all the same: the binds are the cluster's.
    const idle = c.workers.find((w) => !w.output().includes(holds)) as ServerProcess;
    const ready = await waitFor('the worker without a bind ready', async () => {
      const r = await fetch(`${idle.url}/readyz`);
      const body = (await r.json()) as { checks?: { carrier?: { ok: boolean; detail?: string } } };
      return r.status === 200 ? body : undefined;
    });
    assert.match(ready.checks?.carrier?.detail ?? '', /bound here, 1 by other processes/);
  });
});
