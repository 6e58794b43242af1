/**
 * Cancel, pause and resume of a send on every dialect (src/ports/campaign-controls.ts), and
 * the refund primitive under them (`accounts.refund`): a message is cancelled or claimed,
 * never both; a cancelled message's credit comes back once, a claimed one's never; a paused
 * send's messages are claimed by nobody until resume, also when a claimed one is given back.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { storeOn } from '../../../src/adapters/store/open-store.js';
import { encodeRecipients } from '../../../src/domain/deferred-recipients.js';
import { restOf } from '../../../src/services/deferred-messages.js';
import type { SendTarget } from '../../../src/ports/campaign-controls.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';

const lease = now + 60_000;

for (const dialect of testDialects()) {
  describeOn(dialect, `campaign controls (${dialect.name})`, () => {
    const suite = storeSuite(dialect);

    /** A group send of `count` queued messages of `parts` SMS each, charged to a new account of 100,000 credits. */
    async function queuedSend(
      count: number,
      parts = 1,
    ): Promise<{ accountId: number; target: SendTarget; ids: number[] }> {
      const store = suite.store;
      const account = await store.accounts.createAccount(accountInput('Campaign', 100_000), now);
      const keyId = await suite.newKey(account.id);
      const [sendId = 0, ...ids] = await store.messages.allocateIds(count + 1);
      await store.transaction(async (trx) => {
        await trx.accounts.applyCharges(
          [
            {
              accountId: account.id,
              bucket: 'main',
              amount: count * parts,
              reason: 'group send',
              reference: `send:${sendId}`,
            },
          ],
          now,
        );
        await trx.messages.insertSends([{ id: sendId, send: newSend(account.id, keyId, count, count * parts, null) }]);
        await trx.messages.insertMessagesOf([
          {
            send: {
              id: sendId,
              accountId: account.id,
              keyId,
              sandbox: false,
              createdAt: now,
              dueAt: now,
              priority: 10,
            },
            ids,
            messages: ids.map((_, i) => ({
              recipient: `9053${String(10_000_000 + i)}`,
              text: null,
              smsCount: parts,
              operator: 'TURKCELL',
            })),
          },
        ]);
      });
      return { accountId: account.id, target: { accountId: account.id, sendId, kinds: ['group', 'mixed'] }, ids };
    }

    function newSend(accountId: number, keyId: number, total: number, cost: number, pending: string | null) {
      return {
        accountId,
        keyId,
        kind: 'group' as const,
        sender: 'ACME',
        text: 'Hello',
        lang: 0 as const,
        contentType: 0,
        scheduledAt: null,
        sandbox: false,
        totalNumbers: total,
        invalidNumbers: 0,
        blockedNumbers: 0,
        smsCost: cost,
        createdAt: now,
        priority: 10,
        pendingRecipients: pending,
      };
    }

    async function states(sendId: number): Promise<Map<string, number>> {
      const rows = await suite.handle.db
        .selectFrom('messages')
        .select(['state'])
        .where('send_id', '=', sendId)
        .execute();
      const counts = new Map<string, number>();
      for (const r of rows) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
      return counts;
    }

    /** A cancel's answer, without the messages a dispatcher had claimed (asserted apart). */
    async function cancel(
      store: SqlStore,
      target: SendTarget,
    ): Promise<{ cancelled: number; refunded: number } | null> {
      const commit = await store.campaigns.cancelSend(target, now, restOf);
      return commit && { cancelled: commit.cancelled, refunded: commit.refunded };
    }

    async function balance(accountId: number): Promise<number> {
      return (await suite.store.accounts.getAccount(accountId))?.balanceMain ?? -1;
    }

    it('cancels the queued messages with their credit back once, one ledger row with the reason', async () => {
      const { accountId, target, ids } = await queuedSend(5, 2);
      assert.equal(await balance(accountId), 100_000 - 10);
      const first = await cancel(suite.store, target);
      assert.deepEqual(first, { cancelled: 5, refunded: 10 });
      assert.equal(await balance(accountId), 100_000);
      const again = await cancel(suite.store, target);
      assert.deepEqual(again, { cancelled: 0, refunded: 0 });
      assert.equal(await balance(accountId), 100_000);
      const refunds = (await suite.ledger(accountId)).filter((r) => r.delta > 0 && r.reason !== 'opening balance');
      assert.deepEqual(refunds, [
        {
          bucket: 'main',
          delta: 10,
          balance_after: 100_000,
          reason: 'cancelled by the customer',
          reference: `send:${target.sendId}`,
        },
      ]);
      assert.deepEqual([...(await states(target.sendId))], [['cancelled', 5]]);
      // The refund primitive answers nothing for a key it gave before, from any caller.
      const twice = await suite.store.accounts.refund(
        [{ key: `message:${ids[0] ?? 0}`, accountId, bucket: 'main', amount: 2 }],
        'expired',
        null,
        now,
      );
      assert.equal(twice, 0);
      assert.equal(await balance(accountId), 100_000);
    });

    it('a send of another account, or of another kind, is not found', async () => {
      const { target } = await queuedSend(1);
      assert.equal(await cancel(suite.store, { ...target, accountId: target.accountId + 1000 }), null);
      assert.equal(await suite.store.campaigns.pause({ ...target, kinds: ['sms'] }, now), null);
      assert.deepEqual(await cancel(suite.store, target), { cancelled: 1, refunded: 1 });
    });

    it('writes out a list not yet expanded and cancels it, refunding what it was charged', async () => {
      const store = suite.store;
      const account = await store.accounts.createAccount(accountInput('Scheduled', 1000), now);
      const keyId = await suite.newKey(account.id);
      const numbers = ['905321111111', '905322222222', '905323333333'];
      const [sendId = 0] = await store.messages.allocateIds(1);
      await store.transaction(async (trx) => {
        await trx.accounts.applyCharges(
          [{ accountId: account.id, bucket: 'main', amount: 3, reason: 'group send', reference: `send:${sendId}` }],
          now,
        );
        await trx.messages.insertSends([
          { id: sendId, send: newSend(account.id, keyId, 3, 3, encodeRecipients({ numbers, texts: null })) },
        ]);
      });
      const target: SendTarget = { accountId: account.id, sendId, kinds: ['group'] };
      assert.deepEqual(await cancel(store, target), { cancelled: 3, refunded: 3 });
      assert.equal(await balance(account.id), 1000);
      assert.deepEqual([...(await states(sendId))], [['cancelled', 3]]);
      // Nothing is left for the expander.
      assert.equal(await store.queue.claimExpansion(now + 1, lease), null);
    });

    it('a claim and a cancel of the same messages: each message is one or the other, refunds only the cancelled', async () => {
      const count = 400;
      const { accountId, target } = await queuedSend(count);
      // PostgreSQL: the cancel runs on a connection of its own, as another process's would.
      const other: SqlStore = dialect.name === 'postgres' ? storeOn(suite.open(suite.location)) : suite.store;
      const claimed: number[] = [];
      const claims = (async () => {
        for (let round = 0; round < 8; round++)
          claimed.push(...(await suite.store.queue.claimDue(now, 25, lease)).map((m) => m.id));
      })();
      const [outcome] = await Promise.all([other.campaigns.cancelSend(target, now, restOf), claims]);
      assert.ok(outcome);
      const after = await states(target.sendId);
      assert.equal(after.get('submitting') ?? 0, claimed.length, 'every claimed message is still submitting');
      assert.equal(after.get('cancelled') ?? 0, outcome.cancelled);
      assert.equal(claimed.length + outcome.cancelled, count, 'sent + cancelled = accepted');
      assert.equal(outcome.refunded, outcome.cancelled);
      assert.deepEqual(
        [...outcome.inFlight].sort((a, b) => a - b),
        [...claimed].sort((a, b) => a - b),
        'the cancel names the claimed messages it leaves to their dispatcher',
      );
      assert.equal(await balance(accountId), 100_000 - claimed.length);
      // The claimed ones are sent; a second cancel finds nothing, and no claim finds any more.
      await suite.store.queue.markSentMany(
        claimed.map((id) => ({ messageId: id, carrier: 'sim', carrierMessageIds: [`c${id}`] })),
        now,
      );
      assert.deepEqual(await cancel(other, target), { cancelled: 0, refunded: 0 });
      assert.deepEqual(await suite.store.queue.claimDue(now, 1000, lease), []);
      assert.equal(await balance(accountId), 100_000 - claimed.length);
    });

    it('pause holds the queued messages from every claim until resume, also one given back by a dispatcher', async () => {
      const { target, ids } = await queuedSend(4);
      const [held = 0] = (await suite.store.queue.claimDue(now, 1, lease)).map((m) => m.id);
      assert.ok(ids.includes(held));
      assert.deepEqual(await suite.store.campaigns.pause(target, now), { state: 'paused', waiting: 3 });
      assert.deepEqual(await suite.store.queue.claimDue(now, 100, lease), []);
      // The dispatcher gives its claimed message back (a retry): it is held, not queued.
      await suite.store.queue.markRetry(held, now, 'try again');
      assert.deepEqual(await suite.store.queue.claimDue(now, 100, lease), []);
      assert.deepEqual([...(await states(target.sendId))], [['paused', 4]]);
      assert.deepEqual(await suite.store.campaigns.resume(target, now), { state: 'running', waiting: 4 });
      assert.equal((await suite.store.queue.claimDue(now, 100, lease)).length, 4);
    });

    it('a cancelled send is neither paused nor resumed; a paused one is cancelled', async () => {
      const { target } = await queuedSend(2);
      assert.equal((await suite.store.campaigns.pause(target, now))?.state, 'paused');
      assert.deepEqual(await cancel(suite.store, target), { cancelled: 2, refunded: 2 });
      assert.deepEqual(await suite.store.campaigns.resume(target, now), { state: 'cancelled', waiting: 0 });
      assert.deepEqual(await suite.store.campaigns.pause(target, now), { state: 'cancelled', waiting: 0 });
      assert.deepEqual(await suite.store.queue.claimDue(now, 100, lease), []);
    });

    it('claimed messages a dispatcher gives back: cancelled with their credit once (cancelled send), held (paused send)', async () => {
      const { accountId, target } = await queuedSend(6, 2);
      const claimed = (await suite.store.queue.claimDue(now, 4, lease)).map((m) => m.id);
      assert.equal(claimed.length, 4);
      const commit = await suite.store.campaigns.cancelSend(target, now, restOf);
      assert.deepEqual(commit && [commit.cancelled, commit.refunded, commit.inFlight.length], [2, 4, 4]);
      assert.deepEqual(await suite.store.queue.controlledSends([target.sendId, target.sendId + 999]), [target.sendId]);
      // Two given back by the dispatcher, two left to lease expiry (a dispatcher that died).
      const transitions = await suite.store.queue.giveBack(claimed.slice(0, 2), now);
      assert.deepEqual(
        transitions.map((t) => [t.messageId, t.state]),
        claimed.slice(0, 2).map((id) => [id, 'cancelled']),
      );
      // (The suite's store holds other tests' claims too: their leases run out with these.)
      const expired = await suite.store.queue.requeueExpiredLeases(lease + 1);
      assert.ok(expired.requeued >= 2);
      assert.deepEqual(
        expired.cancelled.map((t) => [t.messageId, t.state]).filter(([id]) => claimed.includes(id as number)),
        claimed.slice(2).map((id) => [id, 'cancelled']),
      );
      assert.deepEqual([...(await states(target.sendId))], [['cancelled', 6]]);
      assert.deepEqual(await suite.store.campaigns.inFlightSettling(claimed), {
        submitting: 0,
        cancelled: 4,
        refunded: 8,
      });
      // Every credit back once: given back again, nothing moves.
      assert.deepEqual(await suite.store.queue.giveBack(claimed, now), []);
      assert.equal(await balance(accountId), 100_000);

      const paused = await queuedSend(3);
      const [one = 0] = (await suite.store.queue.claimDue(now, 1, lease)).map((m) => m.id);
      await suite.store.campaigns.pause(paused.target, now);
      assert.deepEqual(await suite.store.queue.giveBack([one], now), []);
      assert.deepEqual([...(await states(paused.target.sendId))], [['paused', 3]]);
      assert.equal(await balance(paused.accountId), 100_000 - 3);
    });
  });
}
