/**
 * Messages accepted by /sms/send go straight to this process's dispatcher when it has room
 * in its window: stored already leased to it, handed off after the commit, submitted without
 * a claim. The store stays the queue: without room they are queued, and a handed message the
 * dispatcher cannot take in time comes back through its lease.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import { simulatedDelivery, storedMessage } from '../helpers/delivery.js';
import type { SimulatedDelivery } from '../helpers/delivery.js';
import { assertAccepted, intField, sendSms } from '../helpers/sms.js';
import { DispatchWindow } from '../../src/jobs/dispatch-window.js';
import { Dispatcher, defaultDispatcherOptions } from '../../src/jobs/dispatcher.js';
import { RecordingCarrier } from '../helpers/recording-carrier.js';
import { countingClaims } from '../helpers/counting-claims.js';

import pino from 'pino';
import type { HandedMessage } from '../../src/ports/dispatch-handoff.js';
import { pause, waitFor } from '../helpers/wait-for.js';

/** The dispatcher's own lease, as `serve` hands messages off with it. */
const leaseMs = defaultDispatcherOptions.leaseMs;

/** Wires a window of `size` between the harness's sends and a dispatcher driven by runOnce(). */
async function handingOff(
  h: Harness,
  size: number,
): Promise<{ delivery: SimulatedDelivery; window: DispatchWindow; handed: HandedMessage[] }> {
  const delivery = await simulatedDelivery(h.runtime);
  const window = new DispatchWindow(size);
  delivery.dispatcher.shareHandoffWindow(window);
  const handed: HandedMessage[] = [];
  h.runtime.services.sends.handOffTo({
    leaseMs,
    reserve: (n) => window.reserve(n),
    release: (n) => window.release(n),
    handOff: (messages) => {
      handed.push(...messages);
      delivery.dispatcher.handOff(messages);
    },
  });
  return { delivery, window, handed };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `handing sends off to the dispatcher on ${dialect.name}`, () => {
    const h = harnessFor(dialect);

    it('stores immediate messages leased to the dispatcher, hands them off and delivers them without a claim', async () => {
      const p = await h.provision();
      const { delivery, window, handed } = await handingOff(h, 400);
      try {
        const answer = await sendSms(h, p.apiKey, { sentto: '905321231111,905421232222', text: 'Merhaba' });
        assertAccepted(answer);
        const lastId = intField(answer, 'sms_id');
        assert.deepEqual(
          handed.map((m) => [m.id, m.recipient, m.text, m.sender, m.attempts, m.leaseUntil]),
          [
            [lastId - 1, '905321231111', 'Merhaba', 'ACME', 1, h.clock.now() + leaseMs],
            [lastId, '905421232222', 'Merhaba', 'ACME', 1, h.clock.now() + leaseMs],
          ],
        );
        assert.equal(window.used(), 2, 'the handed messages hold room in the window');
        for (const m of handed)
          assert.equal(
            (await storedMessage(h.runtime, p.accountId, m.id)).state,
            'submitting',
            'stored already claimed',
          );
        // A claim would find nothing: they are leased. The dispatcher submits them from memory.
        assert.deepEqual(await h.runtime.store.queue.claimDue(h.clock.now(), 10, h.clock.now() + leaseMs), []);
        assert.equal(await delivery.runOnce(), 2);
        for (const m of handed)
          assert.equal((await delivery.waitForState(p.accountId, m.id, ['delivered'])).state, 'delivered');
        assert.equal(window.used(), 0, 'their room is given back once submitted');
      } finally {
        await delivery.stop();
      }
    });

    it('queues the messages in the store when the window has no room for all of them', async () => {
      const p = await h.provision();
      const { delivery, window, handed } = await handingOff(h, 1);
      try {
        const answer = await sendSms(h, p.apiKey, { sentto: '905321230003,905421230004' });
        assertAccepted(answer);
        assert.equal(handed.length, 0);
        assert.equal(window.used(), 0);
        assert.equal((await storedMessage(h.runtime, p.accountId, intField(answer, 'sms_id'))).state, 'queued');
        assert.equal(await delivery.runOnce(), 2, 'claimed from the store');
        assert.equal(
          (await delivery.waitForState(p.accountId, intField(answer, 'sms_id'), ['delivered'])).state,
          'delivered',
        );
      } finally {
        await delivery.stop();
      }
    });

    it('does not hand off scheduled sends', async () => {
      const p = await h.provision();
      const { delivery, handed } = await handingOff(h, 400);
      try {
        assertAccepted(await sendSms(h, p.apiKey, { scheduled_date: '2026-03-16', scheduled_time: '12:00' }));
        assert.equal(handed.length, 0);
      } finally {
        await delivery.stop();
      }
    });

    it('does not claim from the store while handed messages keep it busy, only once the idle interval has passed', async () => {
      const p = await h.provision();
      const carrier = new RecordingCarrier('rec');
      const { store, attempts } = countingClaims(h.runtime.store.queue);
      const dispatcher = new Dispatcher({
        store,
        carriers: { live: carrier, sandbox: carrier },
        clock: h.clock,
        log: pino({ level: 'silent' }),
        options: { ...defaultDispatcherOptions, idleMs: 2_000 },
      });
      const window = new DispatchWindow(400);
      dispatcher.shareHandoffWindow(window);
      h.runtime.services.sends.handOffTo({
        leaseMs,
        reserve: (n) => window.reserve(n),
        release: (n) => window.release(n),
        handOff: (messages) => dispatcher.handOff(messages),
      });
      await dispatcher.start();
      try {
        await waitFor('the first claim, on start', () => attempts.made === 1);
        for (let i = 0; i < 8; i++) {
          assertAccepted(await sendSms(h, p.apiKey, { sentto: `90532123${String(1000 + i)}` }));
          await pause(20);
        }
        await waitFor('eight submits', () => carrier.submitted.length === 8);
        // Each send woke the dispatcher with handed messages; a claim a moment ago found the
        // store empty, so none of those wakes was spent on another.
        assert.equal(attempts.made, 1);
      } finally {
        await dispatcher.stop();
      }
    });

    it('lets a handed message go when more than half its lease is gone, and claims it again once the lease has run out', async () => {
      const p = await h.provision();
      const { delivery, window, handed } = await handingOff(h, 400);
      try {
        const answer = await sendSms(h, p.apiKey, { sentto: '905321230005' });
        const id = intField(answer, 'sms_id');
        assert.equal(handed.length, 1);
        h.clock.advance(leaseMs / 2 + 1);
        assert.equal(await delivery.runOnce(), 0, 'too late to submit from memory, and still leased in the store');
        assert.equal(window.used(), 0, 'its room is given back');
        h.clock.advance(leaseMs);
        await delivery.dispatcher.maintain();
        assert.equal(await delivery.runOnce(), 1, 'claimed from the store after the lease');
        assert.equal((await delivery.waitForState(p.accountId, id, ['delivered'])).state, 'delivered');
      } finally {
        await delivery.stop();
      }
    });
  });
}
