/** How a refused or unanswered submit_sm becomes the pipeline's outcome (docs/smpp.md). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RETRY_AFTER_MS, isTransientStatus, outcomeOf } from '../../../../src/adapters/carriers/smpp/submit-outcome.js';
import { Status } from '../../../../src/smpp/smpp-wire.js';

describe('submit outcomes', () => {
  it('retries ESME_RTHROTTLED after 1 s and ESME_RMSGQFUL after 5 s, never rejecting them', () => {
    assert.deepEqual(outcomeOf({ kind: 'status', status: Status.THROTTLED }, '', false), {
      kind: 'retry',
      reason: 'SMSC throttled ESME_RTHROTTLED (0x58)',
      afterMs: RETRY_AFTER_MS.throttled,
    });
    assert.deepEqual(outcomeOf({ kind: 'status', status: Status.MSGQFUL }, '', false), {
      kind: 'retry',
      reason: 'SMSC queue full ESME_RMSGQFUL (0x14)',
      afterMs: RETRY_AFTER_MS.queueFull,
    });
    assert.equal(RETRY_AFTER_MS.throttled, 1_000);
    assert.equal(RETRY_AFTER_MS.queueFull, 5_000);
    assert.equal(isTransientStatus(Status.MSGQFUL), true);
    assert.equal(isTransientStatus(Status.THROTTLED), true);
  });

  it('rejects any other status for good, naming it', () => {
    const outcome = outcomeOf({ kind: 'status', status: Status.INVDSTADR }, 'part 2/3: ', true);
    assert.equal(outcome.kind, 'rejected');
    assert.equal(isTransientStatus(Status.INVDSTADR), false);
    assert.match(
      outcome.kind === 'rejected' ? outcome.reason : '',
      /^part 2\/3: SMSC refused the message: ESME_RINVDSTADR \(0x0b\) \(earlier parts were accepted/,
    );
  });

  it('retries a lost response or no connection, saying the SMSC may already have it', () => {
    const lost = outcomeOf({ kind: 'lost', why: 'dropped' }, '', false);
    assert.deepEqual(lost, {
      kind: 'retry',
      reason: 'no submit_sm_resp (connection dropped); the SMSC may already have it',
      afterMs: RETRY_AFTER_MS.connection,
    });
    assert.equal(outcomeOf({ kind: 'unavailable' }, '', false).kind, 'retry');
  });
});
