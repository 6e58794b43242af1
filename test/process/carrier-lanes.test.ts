/**
 * Lanes and fair shares of a narrow carrier, through real `haberci serve` and `haberci
 * smsc-sim` processes, on SQLite and on PostgreSQL: the order in which submit_sm reach the
 * SMSC (its `seq`) shows that an interactive message of one account goes before the bulk
 * another account queued earlier, and that two accounts' bulk sends share the link instead
 * of the later one waiting for the whole of the earlier. No timings are asserted: only
 * orders, with room for what reached the SMSC while the requests were being made.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { startSimulator, stop, writeSimCarrierConfig } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { waitFor } from '../helpers/wait-for.js';
import { hasSeries, opsAddress, sample, scrape } from '../helpers/metrics-text.js';

const pgUrl = postgresUrl();

interface Seen {
  destination: string;
  seq: number;
}

/** `count` distinct Turkish mobile numbers starting at `from` (each a valid 90 5xx number). */
function numbers(prefix: string, from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `90${prefix}${String(from + i).padStart(7, '0')}`);
}

const cases = [
  { store: 'sqlite', workers: 1 },
  { store: 'postgres', workers: 1 },
  { store: 'postgres', workers: 2 },
] as const;

for (const { store, workers } of cases) {
  const skip = store === 'postgres' && pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE' : false;
  describe(`carrier lanes and shares (${store}, ${workers} worker${workers > 1 ? 's' : ''})`, { skip }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-lanes-'));
    let sim: Simulator;
    let server: ServerProcess;
    /** Worker processes beside `server` (each binds to the SMSC and claims from the store). */
    const others: ServerProcess[] = [];
    let a: ProvisionedSender;
    let b: ProvisionedSender;
    let ops = '';
    // Before the schema's own after(): the processes go first, then their schema.
    after(async () => {
      for (const s of server ? [server, ...others] : others) {
        s.child.kill('SIGKILL');
        await s.exited;
      }
      if (sim) await stop(sim.child);
      rmSync(dir, { recursive: true, force: true });
    });

    const schema = store === 'postgres' ? schemaForSuite() : null;
    const storeArgs = store === 'postgres' ? ['--database', schema?.url ?? ''] : ['--data', dir];

    before(async () => {
      if (skip) return;
      sim = await startSimulator(['--port', '0', '--receipt-delay-ms', '50']);
      writeSimCarrierConfig(join(dir, 'smpp.json'), sim.port, { windowSize: 5, maxSubmitsPerSecond: 200 });
      const args = [...storeArgs, '--smpp-config', join(dir, 'smpp.json'), '--demo', 'false'];
      server = await startServer([...args, '--requests-per-second', '0', '--ops-port', '0']);
      ops = opsAddress(server.output());
      for (let i = 1; i < workers; i++) others.push(await startServer(args));
      a = await provisionSender(storeArgs, 'Big', 1_000_000);
      b = await provisionSender(storeArgs, 'Small', 1_000_000);
    });

    const send = async (apiKey: string, to: readonly string[]): Promise<void> => {
      const r = await postJson(`${server.url}/sms/send`, {
        api_key: apiKey,
        title: 'ACME',
        text: 'Merhaba',
        sentto: to.join(','),
      });
      assert.equal(r.body.result_code, 'TS-1024', JSON.stringify(r.body));
    };

    /** The SMSC's count of submit_sm so far (the `seq` of the latest). */
    const submitsSoFar = async (): Promise<number> =>
      ((await (await fetch(sim.stats)).json()) as { submits: number }).submits;

    /** Every kept submit to one of `wanted`, once all have come. */
    const seen = async (wanted: readonly string[]): Promise<Map<string, number>> => {
      const want = new Set(wanted);
      return waitFor(
        `${want.size} submits at the SMSC`,
        async () => {
          const all = (await (await fetch(`${sim.stats.replace(/\/stats$/, '')}/submits`)).json()) as Seen[];
          const found = new Map<string, number>();
          for (const s of all)
            if (want.has(s.destination) && !found.has(s.destination)) found.set(s.destination, s.seq);
          return found.size === want.size ? found : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    };

    it('an interactive message (to one number, now) goes before the bulk another account queued first', async () => {
      const bulk = numbers('532', 1000, 800);
      for (let i = 0; i < 8; i++) await send(a.apiKey, bulk.slice(i * 100, i * 100 + 100));
      const [single] = numbers('555', 1, 1);
      await send(b.apiKey, [single as string]);
      const sent = await submitsSoFar();
      const order = await seen([...bulk, single as string]);
      const at = order.get(single as string) as number;
      // What reached the SMSC after the interactive message was accepted and before it.
      const between = bulk.filter((n) => (order.get(n) as number) > sent && (order.get(n) as number) < at).length;
      const left = bulk.filter((n) => (order.get(n) as number) > sent).length;
      // In one queue it would wait for every bulk message left (at least the 400 the dispatcher holds).
      assert.ok(left > 100, `the bulk was still queued when the interactive message came (${left} left)`);
      // What was on the wire, and what went while it was claimed from the store (the
      // dispatcher's window was full): a few on a quiet machine, up to 31 seen on a loaded
      // one (0.15 s at 200/s); in one queue, all that the dispatcher held (400) at least.
      assert.ok(
        between < 100 * workers,
        `${between} of the ${left} bulk messages left went before the interactive one`,
      );
    });

    it("two accounts' bulk sends share the link: the later, smaller one does not wait for the earlier", async () => {
      // More than every worker's dispatcher holds (400 each), so some waits in the store.
      const big = numbers('533', 1000, 400 * (workers + 1));
      for (let i = 0; i < big.length / 100; i++) await send(a.apiKey, big.slice(i * 100, i * 100 + 100));
      const small = numbers('556', 1, 40);
      await send(b.apiKey, small);
      const sent = await submitsSoFar();
      // The dispatchers hold 400 each; the rest waits in the store's bulk lane, and /metrics says so.
      const metrics = await scrape(ops);
      assert.ok(sample(metrics, 'haberci_lane_backlog{lane="bulk"}') > 0, 'bulk waits in the store');
      assert.equal(sample(metrics, 'haberci_lane_backlog{lane="interactive"}'), 0);
      assert.ok(hasSeries(metrics, 'haberci_lane_oldest_waiting_age_seconds'));
      // Per account too: the big send's account waits; the first worker started holds the one bind.
      assert.ok(sample(metrics, `haberci_account_backlog{account="${a.accountId}"}`) > 0, 'its account waits');
      assert.equal(sample(metrics, 'haberci_smpp_connection_bind_held{carrier="sim",connection="0"}'), 1);
      const order = await seen([...big, ...small]);
      const last = Math.max(...small.map((n) => order.get(n) as number));
      const between = big.filter((n) => (order.get(n) as number) > sent && (order.get(n) as number) < last).length;
      const left = big.filter((n) => (order.get(n) as number) > sent).length;
      assert.ok(left > 200, `the big send was still queued when the small one came (${left} left)`);
      // An equal share: about one of the big send's for each of the small one's, and what was on its way.
      assert.ok(
        between < (workers === 1 ? 40 + 60 : left / 2),
        `${between} of the ${left} left of the big send went before the small one's last`,
      );
    });

    it("the provider sets an account's weight in its share (admin account update --send-weight)", async () => {
      const updated = await admin(['account', 'update', '--id', b.accountId, '--send-weight', '3', ...storeArgs]);
      assert.equal(updated.send_weight, 3);
      const shown = await admin(['account', 'show', '--id', a.accountId, ...storeArgs]);
      assert.equal(shown.send_weight, 1);
    });
  });
}
