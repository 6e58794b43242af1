/**
 * The claim from the store shares its room by lane and account, on every dialect, through
 * the real send paths (POST /sms/send): an account's interactive message (to one number,
 * now) is claimed before any bulk; accounts with bulk waiting are claimed in turn, by
 * weight (`account update --send-weight`), not in the order their messages were queued; and
 * an account's interactive messages over its cap are claimed in its turn of the bulk lane.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { assertAccepted, sendSms, turkishNumbers } from '../helpers/sms.js';
import { LaneScheduler } from '../../src/jobs/lane-scheduler.js';
import type { ClaimedMessage } from '../../src/ports/dispatch-queue.js';
import { valueOf } from '../helpers/results.js';

/** Claims `limit` with a fresh scheduler of `capacity`, and says whose each claimed message is. */
async function claim(h: Harness, limit: number, scheduler = new LaneScheduler<ClaimedMessage>(1000)) {
  const now = h.clock.now();
  return h.runtime.store.queue.claimDue(now, limit, now + 60_000, scheduler);
}

const count = (claimed: readonly ClaimedMessage[], accountId: number, lane?: string): number =>
  claimed.filter((m) => m.accountId === accountId && (lane === undefined || m.lane === lane)).length;

for (const dialect of testDialects()) {
  describeOn(dialect, `the lane claim (${dialect.name})`, () => {
    it("claims another account's interactive message before a bulk backlog queued first", async () => {
      const h = await createHarness(await dialect.location());
      try {
        const big = await h.provision({ account: { balanceMain: 10_000 } });
        const small = await h.provision({ account: { balanceMain: 10 } });
        for (let i = 0; i < 3; i++)
          assertAccepted(await sendSms(h, big.apiKey, { sentto: turkishNumbers(100, i * 100).join(',') }));
        assertAccepted(await sendSms(h, small.apiKey, { sentto: '905559990001' }));
        const claimed = await claim(h, 1);
        assert.equal(claimed.length, 1);
        assert.equal(claimed[0]?.accountId, small.accountId);
        assert.equal(claimed[0]?.lane, 'interactive');
      } finally {
        await h.close();
      }
    });

    it('shares a claim between accounts with bulk waiting, equally by default and by weight when set', async () => {
      const h = await createHarness(await dialect.location());
      try {
        const big = await h.provision({ account: { balanceMain: 10_000 } });
        const small = await h.provision({ account: { balanceMain: 1_000 } });
        for (let i = 0; i < 3; i++)
          assertAccepted(await sendSms(h, big.apiKey, { sentto: turkishNumbers(100, i * 100).join(',') }));
        assertAccepted(await sendSms(h, small.apiKey, { sentto: turkishNumbers(100, 5000).join(',') }));
        const equal = await claim(h, 40);
        assert.equal(equal.length, 40);
        assert.deepEqual([count(equal, big.accountId), count(equal, small.accountId)], [20, 20]);

        await valueOf(h.runtime.admin.updateAccount(small.accountId, { sendWeight: 3 }, {}));
        const weighted = await claim(h, 40);
        assert.deepEqual([count(weighted, big.accountId), count(weighted, small.accountId)], [10, 30]);
      } finally {
        await h.close();
      }
    });

    it('fills the claim from the accounts that have more when others have only a few', async () => {
      const h = await createHarness(await dialect.location());
      try {
        const big = await h.provision({ account: { balanceMain: 10_000 } });
        const few = [
          await h.provision({ account: { balanceMain: 100 } }),
          await h.provision({ account: { balanceMain: 100 } }),
        ];
        for (let i = 0; i < 3; i++)
          assertAccepted(await sendSms(h, big.apiKey, { sentto: turkishNumbers(100, i * 100).join(',') }));
        for (const [i, p] of few.entries())
          assertAccepted(await sendSms(h, p.apiKey, { sentto: turkishNumbers(5, 5000 + i * 100).join(',') }));
        const claimed = await claim(h, 40);
        assert.equal(claimed.length, 40, 'a full claim: the store is not drained');
        assert.deepEqual(
          few.map((p) => count(claimed, p.accountId)),
          [5, 5],
        );
      } finally {
        await h.close();
      }
    });

    it('claims a run of small claims in turn, so the account queued first does not take every one', async () => {
      const h = await createHarness(await dialect.location());
      try {
        const big = await h.provision({ account: { balanceMain: 10_000 } });
        const small = await h.provision({ account: { balanceMain: 1_000 } });
        assertAccepted(await sendSms(h, big.apiKey, { sentto: turkishNumbers(100).join(',') }));
        assertAccepted(await sendSms(h, small.apiKey, { sentto: turkishNumbers(10, 5000).join(',') }));
        // One dispatcher, claiming one message at a time (a slow carrier frees one at a time).
        const scheduler = new LaneScheduler<ClaimedMessage>(1000);
        const order: number[] = [];
        for (let i = 0; i < 10; i++) {
          const [m] = await claim(h, 1, scheduler);
          if (!m) break;
          scheduler.add(m);
          order.push(m.accountId);
          scheduler.done(scheduler.next() as ClaimedMessage);
        }
        assert.equal(order.filter((a) => a === small.accountId).length, 5, `claimed in turn: ${order.join(',')}`);
      } finally {
        await h.close();
      }
    });

    it("claims an account's interactive messages over its cap in its turn of the bulk lane", async () => {
      const h = await createHarness(await dialect.location());
      try {
        const splitter = await h.provision({ account: { balanceMain: 10_000 } });
        const other = await h.provision({ account: { balanceMain: 1_000 } });
        for (const n of turkishNumbers(30)) assertAccepted(await sendSms(h, splitter.apiKey, { sentto: n }));
        assertAccepted(await sendSms(h, other.apiKey, { sentto: turkishNumbers(30, 5000).join(',') }));
        // A carrier that takes 8 at once: an account's interactive cap is 4.
        const claimed = await claim(h, 20, new LaneScheduler<ClaimedMessage>(8));
        assert.equal(count(claimed, splitter.accountId), 4 + 8, 'its cap, then its turn of the bulk lane');
        assert.equal(count(claimed, other.accountId), 8);
      } finally {
        await h.close();
      }
    });
  });
}
