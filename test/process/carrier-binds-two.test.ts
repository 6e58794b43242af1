/**
 * The SMPP carrier's binds shared by a cluster (test/helpers/carrier-cluster.ts): with a
 * connection of maxBinds 2, two of three workers on one PostgreSQL schema bind, each message
 * is submitted once, and the worker holding no bind is ready all the same.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { cluster, holds, numbers, skip } from '../helpers/carrier-cluster.js';

// Bounded below the runner's 300 s a file: a wait that fails says what it waited for, and
// the suite's after() still stops the processes.
describe('SMPP carrier binds across three workers on PostgreSQL, maxBinds 2', { skip, timeout: 270_000 }, () => {
  const c = cluster(2);

  it('makes two binds across three workers and submits each message once', async () => {
    await waitFor('two binds', async () => ((await c.stats()).boundNow === 2 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 50,
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
