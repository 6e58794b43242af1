import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  canMove,
  combineParts,
  detailText,
  isFinal,
  reportStatus,
  statusQueryAnswer,
  summaryBucket,
  webhookStatus,
} from '../../src/domain/delivery-state.js';
import type { DeliveryState, FinalState, PartState } from '../../src/domain/delivery-state.js';

const states: readonly DeliveryState[] = ['queued', 'submitting', 'sent', 'delivered', 'failed', 'expired'];

describe('delivery state: transitions', () => {
  /** Every allowed move; all other pairs are refused. */
  const allowed = new Set([
    'queued>submitting',
    'queued>failed',
    'submitting>queued',
    'submitting>sent',
    'submitting>failed',
    'sent>delivered',
    'sent>failed',
    'sent>expired',
    'queued>delivered',
    'queued>expired',
    'submitting>delivered',
    'submitting>expired',
  ]);
  for (const from of states) {
    for (const to of states) {
      const expected = allowed.has(`${from}>${to}`);
      it(`${from} -> ${to}: ${expected ? 'allowed' : 'refused'}`, () => {
        assert.equal(canMove(from, to), expected);
      });
    }
  }

  it('final states are delivered, failed and expired, and none of them moves again', () => {
    assert.deepEqual(
      states.filter((s) => isFinal(s)),
      ['delivered', 'failed', 'expired'],
    );
    for (const from of ['delivered', 'failed', 'expired'] as const) {
      assert.deepEqual(
        states.filter((to) => canMove(from, to)),
        [],
      );
    }
  });

  it('a receipt is proof of submission: it settles a message queued or submitting again after a late submit answer', () => {
    assert.equal(canMove('queued', 'delivered'), true);
    assert.equal(canMove('submitting', 'expired'), true);
    assert.equal(canMove('queued', 'sent'), false, 'only a submit answer moves a message to sent');
  });
});

describe('delivery state: combining the parts of a multi-part message', () => {
  const cases: Array<[PartState[], FinalState | null]> = [
    [[], null],
    [['sent'], null],
    [['delivered'], 'delivered'],
    [['failed'], 'failed'],
    [['expired'], 'expired'],
    [['delivered', 'delivered', 'delivered'], 'delivered'],
    [['delivered', 'sent'], null],
    [['sent', 'delivered', 'delivered'], null],
    // One failed part fails the message at once, even while others are still out.
    [['failed', 'sent'], 'failed'],
    [['delivered', 'failed'], 'failed'],
    [['expired', 'failed', 'delivered'], 'failed'],
    // Expired only once every part is final.
    [['expired', 'sent'], null],
    [['delivered', 'expired'], 'expired'],
    [['expired', 'expired'], 'expired'],
  ];
  for (const [parts, expected] of cases) {
    it(`[${parts.join(', ')}] -> ${expected ?? 'not final'}`, () => {
      assert.equal(combineParts(parts), expected);
    });
  }
});

describe('delivery state: where states are reported', () => {
  const table: Array<
    [
      DeliveryState,
      'TS-1064' | 'TS-1022',
      0 | 1 | 2,
      'sent' | 'delivered' | 'failed' | null,
      'success' | 'failed' | 'pending',
    ]
  > = [
    ['queued', 'TS-1022', 0, null, 'pending'],
    ['submitting', 'TS-1022', 0, null, 'pending'],
    ['sent', 'TS-1022', 0, 'sent', 'pending'],
    ['delivered', 'TS-1064', 1, 'delivered', 'success'],
    ['failed', 'TS-1022', 0, 'failed', 'failed'],
    // The webhook model has no expired: an expired message is a failure there.
    ['expired', 'TS-1022', 2, 'failed', 'failed'],
  ];
  for (const [state, query, statusCode, webhook, bucket] of table) {
    it(`${state}: /sms/status ${query}, status_code ${statusCode}, webhook ${webhook ?? 'none'}, counter ${bucket}`, () => {
      assert.equal(statusQueryAnswer(state).code, query);
      assert.equal(reportStatus(state).statusCode, statusCode);
      assert.equal(webhookStatus(state), webhook);
      assert.equal(summaryBucket(state), bucket);
    });
  }

  it('uses the spec texts for /sms/status and the detailed report', () => {
    assert.equal(statusQueryAnswer('delivered').text, 'Number received the message');
    assert.equal(statusQueryAnswer('sent').text, 'The number did not receive the message');
    assert.equal(statusQueryAnswer('failed').text, 'The number did not receive the message');
    assert.deepEqual(reportStatus('delivered'), { statusCode: 1, text: 'Number received the message' });
    assert.deepEqual(reportStatus('expired'), { statusCode: 2, text: 'Expiration time' });
    assert.deepEqual(reportStatus('failed'), { statusCode: 0, text: "Number didn't receive the message" });
    assert.deepEqual(reportStatus('queued'), { statusCode: 0, text: "Number didn't receive the message" });
  });

  it('has a details text for every state, and distinct ones for the final states', () => {
    for (const s of states) assert.ok(detailText(s).length > 0, s);
    assert.equal(
      new Set([detailText('delivered'), detailText('failed'), detailText('expired'), detailText('sent')]).size,
      4,
    );
  });
});
