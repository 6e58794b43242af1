import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isReceipt, parseReceipt } from '../../../../src/adapters/carriers/smpp/delivery-receipt.js';

const text = (stat: string, id = '0A1B2C', err = '000') =>
  `id:${id} sub:001 dlvrd:001 submit date:2501011200 done date:2501011201 stat:${stat} err:${err} text:Hello`;

describe('delivery receipts', () => {
  it('recognises a receipt by esm_class 0x04 or by the receipted_message_id TLV', () => {
    assert.equal(isReceipt({ esmClass: 0x04 }), true);
    assert.equal(isReceipt({ esmClass: 0x00, receiptedMessageId: 'X' }), true);
    assert.equal(isReceipt({ esmClass: 0x40 }), false);
  });

  const table: Array<[string, 'delivered' | 'failed' | 'expired']> = [
    ['DELIVRD', 'delivered'],
    ['EXPIRED', 'expired'],
    ['UNDELIV', 'failed'],
    ['REJECTD', 'failed'],
    ['DELETED', 'failed'],
    ['UNKNOWN', 'failed'],
  ];
  for (const [stat, status] of table) {
    it(`maps text stat ${stat} to ${status}`, () => {
      assert.deepEqual(parseReceipt({ esmClass: 4, text: text(stat, 'ab12', '042') }), {
        kind: 'final',
        carrierMessageId: 'ab12',
        status,
        detail: `stat:${stat} err:042`,
      });
    });
  }

  it('ignores intermediate states ACCEPTD and ENROUTE', () => {
    assert.equal(parseReceipt({ esmClass: 4, text: text('ACCEPTD') }).kind, 'intermediate');
    assert.equal(parseReceipt({ esmClass: 4, text: text('ENROUTE') }).kind, 'intermediate');
  });

  it('prefers the TLVs over the text', () => {
    const parsed = parseReceipt({
      esmClass: 4,
      receiptedMessageId: 'TLV-ID',
      messageState: 3,
      text: text('DELIVRD', 'TEXT-ID'),
    });
    assert.deepEqual(parsed, {
      kind: 'final',
      carrierMessageId: 'TLV-ID',
      status: 'expired',
      detail: 'stat:EXPIRED err:000',
    });
  });

  it('uses the text state when the TLV state is absent', () => {
    const parsed = parseReceipt({ esmClass: 4, receiptedMessageId: 'TLV-ID', text: text('UNDELIV') });
    assert.equal(parsed.kind === 'final' && parsed.status, 'failed');
  });

  it('does not take the "submit date:" words for the id', () => {
    const parsed = parseReceipt({ esmClass: 4, text: 'sub:001 submit date:2501011200 id:77 stat:DELIVRD' });
    assert.equal(parsed.kind === 'final' && parsed.carrierMessageId, '77');
  });

  it('calls a receipt without id or with an unknown state invalid', () => {
    assert.equal(parseReceipt({ esmClass: 4, text: 'stat:DELIVRD' }).kind, 'invalid');
    assert.equal(parseReceipt({ esmClass: 4, text: 'id:1 stat:WEIRD' }).kind, 'invalid');
  });
});
