/**
 * The SMPP carrier's binds shared by a cluster, through real processes: three `haberci
 * serve` workers on one PostgreSQL schema against one `haberci smsc-sim`
 * (test/helpers/carrier-cluster.ts). With a connection of maxBinds 1 the SMSC never sees
 * more than one bind at once, and every message accepted by a worker, whichever, is
 * submitted once, by the bind's owner; killed with SIGKILL, the owner's bind is taken by
 * another worker after the lease, and every message is delivered; a message is submitted
 * twice only if the dead owner had submitted it (its outcome not yet written), and at most
 * twice. No timings are asserted: counts the simulator kept.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postJson } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { cluster, holds, numbers, skip } from '../helpers/carrier-cluster.js';

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
    // What the SMSC had from the dead owner: its lease keeps the bind's place for the lease,
    // so no other worker binds meanwhile (the simulator's count of binds says so).
    const bindsAtKill = (await c.stats()).binds;
    const seenFromOwner = new Set((await c.submitted()).filter((d) => to.includes(d)));
    assert.equal((await c.stats()).binds, bindsAtKill, 'read before another worker bound');
    const counts = await c.submitsPer(to);
    const twice = [...counts.entries()].filter(([, n]) => n > 1);
    // Submitted again only what the dead owner had submitted without writing its outcome,
    // and never a third time (docs/smpp.md, "Binds across a cluster").
    assert.deepEqual(
      twice.filter(([d, n]) => !seenFromOwner.has(d) || n > 2),
      [],
      `${twice.length} submitted twice`,
    );
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
