import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SubmitOutcome } from '../../../../src/ports/carrier.js';
import { SmppCarrier } from '../../../../src/adapters/carriers/smpp/smpp-carrier.js';
import { SmscSimulator } from '../../../../src/adapters/carriers/smpp/smsc-simulator.js';
import { carrierConfig, message, RecordingListener, startCarrier, startSimulator } from './smpp-harness.js';
import { waitFor } from '../../../helpers/wait-for.js';

/** The pipeline's side of a retry, in small: resubmit while the carrier says retry. */
async function submitWithRetries(submit: () => Promise<SubmitOutcome>, attempts: number): Promise<SubmitOutcome[]> {
  const seen: SubmitOutcome[] = [];
  for (let i = 0; i < attempts; i++) {
    const outcome = await submit();
    seen.push(outcome);
    if (outcome.kind !== 'retry') break;
  }
  return seen;
}

describe('SMPP carrier: throttling, drops and failover', () => {
  it('turns ESME_RTHROTTLED into retry with a hint, and a retry then succeeds', async () => {
    const { sim, port } = await startSimulator({ throttleShare: 0.5 });
    const { carrier } = await startCarrier(carrierConfig([port]));
    try {
      assert.equal((await carrier.submit(message('905321110011'))).kind, 'accepted');
      const seen = await submitWithRetries(() => carrier.submit(message('905321110012')), 5);
      assert.deepEqual(
        seen.map((o) => o.kind),
        ['retry', 'accepted'],
      );
      const first = seen[0];
      assert.ok(first?.kind === 'retry' && first.afterMs === 1000 && /ESME_RTHROTTLED/.test(first.reason));
      assert.equal(sim.stats.throttled, 1);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('retries a throttled later part itself, so a multi-part message is accepted whole', async () => {
    const { sim, port } = await startSimulator({ throttleShare: 0.5 });
    const { carrier } = await startCarrier(carrierConfig([port]));
    try {
      const outcome = await carrier.submit(message('905321110013', 'y'.repeat(100), 2));
      assert.equal(outcome.kind, 'accepted');
      assert.equal(outcome.kind === 'accepted' && outcome.carrierMessageIds.length, 2);
      assert.deepEqual(
        sim.received.map((r) => r.udh?.[5]),
        [1, 2, 2],
        'part 2 was throttled once and sent again',
      );
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('returns retry for a submit in flight when the SMSC drops the connection, then re-binds', async () => {
    // Per session: PDU 1 is the bind, 2 a submit answered, 3 a submit dropped unanswered.
    const { sim, port } = await startSimulator({ dropEvery: 3 });
    const { carrier } = await startCarrier(carrierConfig([port]));
    try {
      assert.equal((await carrier.submit(message('905321110021'))).kind, 'accepted');
      const lost = await carrier.submit(message('905321110022'));
      assert.ok(lost.kind === 'retry' && /connection dropped/.test(lost.reason), JSON.stringify(lost));
      await waitFor('re-bind', () => sim.stats.binds === 2 && carrier.status()[0]?.bound === true);
      assert.equal((await carrier.submit(message('905321110022'))).kind, 'accepted');
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('returns retry while the SMSC is down and re-binds when it is back', async () => {
    const first = await startSimulator();
    const { carrier } = await startCarrier(carrierConfig([first.port]));
    let second: SmscSimulator | undefined;
    try {
      await first.sim.stop();
      await waitFor('connection marked down', () => carrier.status()[0]?.bound === false);
      const down = await carrier.submit(message('905321110031'));
      assert.ok(down.kind === 'retry' && /no bound SMPP connection/.test(down.reason));
      second = new SmscSimulator({
        port: first.port,
        receiptDelayMs: { min: 5, max: 5 },
        throttleShare: 0,
        dropEvery: 0,
      });
      await second.start();
      await waitFor('re-bind to the restarted SMSC', () => carrier.status()[0]?.bound === true);
      assert.equal((await carrier.submit(message('905321110031'))).kind, 'accepted');
      assert.equal(second.received.length, 1);
    } finally {
      await carrier.stop();
      await second?.stop();
    }
  });

  it('routes by the longest operator prefix and fails over when that connection is down', async () => {
    const a = await startSimulator();
    const b = await startSimulator();
    const config = carrierConfig([a.port, b.port], { defaultRoute: 'c1' });
    const routed = {
      ...config,
      connections: config.connections.map((c, i) =>
        i === 0 ? { ...c, prefixes: ['9053', '90532'] } : { ...c, prefixes: ['905'] },
      ),
    };
    const { carrier } = await startCarrier(routed);
    try {
      assert.equal((await carrier.submit(message('905321234567'))).kind, 'accepted');
      assert.equal((await carrier.submit(message('905421234567'))).kind, 'accepted');
      assert.equal((await carrier.submit(message('491701234567'))).kind, 'accepted');
      assert.deepEqual(
        a.sim.received.map((r) => r.destination),
        ['905321234567'],
      );
      assert.deepEqual(
        b.sim.received.map((r) => r.destination),
        ['905421234567', '491701234567'],
      );
      await a.sim.stop();
      await waitFor('first connection down', () => carrier.status()[0]?.bound === false);
      assert.equal((await carrier.submit(message('905321234568'))).kind, 'accepted');
      assert.equal(b.sim.received.at(-1)?.destination, '905321234568');
    } finally {
      await carrier.stop();
      await b.sim.stop();
    }
  });

  it('refuses a bind with wrong credentials and keeps retrying, never bound', async () => {
    const { sim, port } = await startSimulator({ systemId: 'haberci', password: 'other' });
    const carrier = new SmppCarrier(carrierConfig([port]));
    await carrier.start(new RecordingListener());
    try {
      await waitFor('two refused binds', () => sim.stats.bindsRefused >= 2);
      assert.equal(carrier.status()[0]?.bound, false);
      assert.equal((await carrier.submit(message('905321110041'))).kind, 'retry');
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('never has more submits in flight than the window', async () => {
    const { sim, port } = await startSimulator({ submitRespDelayMs: 20 });
    const { carrier } = await startCarrier(carrierConfig([port], {}, { windowSize: 3 }));
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => carrier.submit(message(`9053211100${50 + i}`))),
      );
      assert.ok(outcomes.every((o) => o.kind === 'accepted'));
      assert.equal(sim.stats.submitsAccepted, 12);
      assert.equal(sim.stats.peakUnanswered, 3);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });

  it('returns retry when the submit_sm_resp does not come within submitTimeoutMs', async () => {
    const { sim, port } = await startSimulator({ submitRespDelayMs: 400 });
    const { carrier } = await startCarrier(carrierConfig([port], { submitTimeoutMs: 100 }));
    try {
      const outcome = await carrier.submit(message('905321110061'));
      assert.ok(
        outcome.kind === 'retry' &&
          /no submit_sm_resp \(timed out\); the SMSC may already have it/.test(outcome.reason),
        JSON.stringify(outcome),
      );
      assert.equal(sim.received.length, 1);
    } finally {
      await carrier.stop();
      await sim.stop();
    }
  });
});
