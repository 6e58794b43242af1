/**
 * Three `haberci serve` workers on one PostgreSQL schema against one `haberci smsc-sim`,
 * sharing one SMPP connection of `maxBinds` places (test/process/carrier-binds*.test.ts).
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, provisionSender, startServer } from './server-process.js';
import type { ProvisionedSender, ServerProcess } from './server-process.js';
import { startSimulator, stop, writeSimCarrierConfig } from './smsc-sim.js';
import type { Simulator } from './smsc-sim.js';
import { postgresUrl, schemaForSuite } from './dialects.js';
import { waitFor } from './wait-for.js';

export const pgUrl = postgresUrl();
export const skip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE' : false;
export const windowSize = 5;
export const leaseMs = 3000;
/** What a worker logs when it takes a place of the connection. */
export const holds = 'holds a bind of the connection';

export interface SimStats {
  binds: number;
  boundNow: number;
  peakBound: number;
  submits: number;
  peakSubmitsPerSecond: number;
}

/** `count` distinct mobile numbers (none ending in the simulator's 0000-0002, which fail or expire). */
export function numbers(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `90${prefix}${String(1000 + i).padStart(7, '0')}`);
}

export function cluster(maxBinds: number): {
  sim: () => Simulator;
  workers: ServerProcess[];
  sender: () => ProvisionedSender;
  stats: () => Promise<SimStats>;
  submitsPer: (wanted: readonly string[]) => Promise<Map<string, number>>;
  /** The destination of every submit_sm the SMSC has taken so far, in order. */
  submitted: () => Promise<string[]>;
  send: (worker: ServerProcess, to: readonly string[]) => Promise<number>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-carrier-binds-'));
  let sim: Simulator | undefined;
  let sender: ProvisionedSender | undefined;
  const workers: ServerProcess[] = [];

  // Registered before the schema's own after(), since after() hooks run in order: the
  // processes go first, then their schema. The other way round, DROP SCHEMA beside three
  // live workers deadlocked with them, node skipped the hooks after the failed one, and the
  // workers and the simulator were left running: the file never ended and the runner
  // killed it at 300 s (issue 42).
  after(async () => {
    for (const w of workers) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    if (sim) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  });

  const schema = schemaForSuite();
  const storeArgs = ['--database', schema.url];

  before(async () => {
    if (skip) return;
    sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '20']);
    writeSimCarrierConfig(join(dir, 'smpp.json'), sim.port, {
      windowSize,
      maxSubmitsPerSecond: 40,
      maxBinds,
      reconnectMinMs: 100,
      reconnectMaxMs: 500,
    });
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

  const simOf = (): Simulator => sim as Simulator;
  return {
    sim: simOf,
    workers,
    sender: () => sender as ProvisionedSender,
    stats: async () => (await (await fetch(simOf().stats)).json()) as SimStats,
    submitted: async () =>
      ((await (await fetch(simOf().stats.replace(/\/stats$/, '/submits'))).json()) as { destination: string }[]).map(
        (s) => s.destination,
      ),
    // How many submit_sm reached the SMSC for each of `wanted`, once each has come at least
    // once. Bounded well inside the runner's limit (the wait is scaled by
    // HABERCI_TEST_WAIT_SCALE): a message that never comes fails the test with what is
    // missing, the simulator's counts and each worker's last lines, not a killed file.
    submitsPer: async (wanted) => {
      const want = new Set(wanted);
      let count = new Map<string, number>();
      try {
        return await waitFor(
          `${wanted.length} destinations at the SMSC`,
          async () => {
            const all = (await (await fetch(simOf().stats.replace(/\/stats$/, '/submits'))).json()) as {
              destination: string;
            }[];
            count = new Map<string, number>();
            for (const s of all)
              if (want.has(s.destination)) count.set(s.destination, (count.get(s.destination) ?? 0) + 1);
            return count.size === want.size ? count : undefined;
          },
          { timeoutMs: 40_000, intervalMs: 100 },
        );
      } catch (error) {
        const stats = await (await fetch(simOf().stats)).json().catch(() => null);
        const tails = workers.map((w, i) => `worker ${i}:\n${w.output().split('\n').slice(-8).join('\n')}`);
        throw new Error(
          `${String(error)}: ${want.size - count.size} of ${want.size} never submitted; SMSC ${JSON.stringify(stats)}\n${tails.join('\n')}`,
        );
      }
    },
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
