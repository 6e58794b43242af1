import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeShortMessage } from '../../src/domain/sms-decoding.js';

describe('decodeShortMessage', () => {
  it('reads unpacked GSM septets with extension characters', () => {
    assert.equal(decodeShortMessage(Buffer.from([0x41, 0x1b, 0x65, 0x1b, 0x3c, 0x7e]), 0, 0).text, 'A€[ü');
  });

  it('reads the Turkish single shift when the UDH announces it', () => {
    const bytes = Buffer.from([0x03, 0x24, 0x01, 0x01, 0x1b, 0x73, 0x1b, 0x49]);
    assert.equal(decodeShortMessage(bytes, 0, 0x40).text, 'şİ');
    // Without the IE the same septets are the default extension: unknown, so the base character.
    assert.equal(decodeShortMessage(bytes.subarray(4), 0, 0).text, 'sI');
  });

  it('reads UCS-2 with a surrogate pair, and Latin-1', () => {
    assert.equal(decodeShortMessage(Buffer.from('0627d83dde00', 'hex'), 8, 0).text, 'ا😀');
    assert.equal(decodeShortMessage(Buffer.from([0xe7, 0x61]), 3, 0).text, 'ça');
  });

  it('reports 8-bit and 16-bit concatenation references', () => {
    assert.deepEqual(decodeShortMessage(Buffer.from([5, 0, 3, 9, 2, 1, 0x41]), 0, 0x40), {
      text: 'A',
      concat: { reference: 9, total: 2, seq: 1 },
    });
    assert.deepEqual(decodeShortMessage(Buffer.from([6, 8, 4, 1, 2, 3, 3, 0x41]), 0, 0x40).concat, {
      reference: 258,
      total: 3,
      seq: 3,
    });
  });
});
