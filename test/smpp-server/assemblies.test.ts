/**
 * The text of a concatenated message (src/smpp-server/assemblies.ts): the parts' payloads
 * joined in sequence order and decoded once, so an escape or a surrogate pair split across
 * parts reads right, with the Turkish shift when a part announced it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleText, assembledSchedule } from '../../src/smpp-server/assemblies.js';
import type { AssemblyPart } from '../../src/ports/smpp-parts.js';

const part = (seq: number, payload: Buffer, over: Partial<AssemblyPart> = {}): AssemblyPart => ({
  smppUserId: 1,
  sourceAddr: 'ACME',
  destination: '905321112233',
  dataCoding: 0,
  reference: 7,
  total: 2,
  seq,
  payload,
  turkish: false,
  partId: String(seq),
  receipt: false,
  receivedAt: 0,
  scheduledAt: null,
  ...over,
});

describe('the text of a concatenated message', () => {
  it('joins GSM septets in sequence order before decoding: an escape at the end of a part', () => {
    // ESC (0x1b) ends part 1, "e" (0x65) opens part 2: together the euro sign.
    const text = assembleText([part(2, Buffer.from([0x65, 0x42])), part(1, Buffer.from([0x41, 0x1b]))]);
    assert.equal(text, 'A\u20acB');
  });

  it('reads the Turkish single shift when a part announced it', () => {
    // ESC + 0x73 is "ş" in the Turkish single shift table.
    assert.equal(assembleText([part(1, Buffer.from([0x1b]), { turkish: true }), part(2, Buffer.from([0x73]))]), 'ş');
  });

  it('joins UCS-2 bytes before decoding: a surrogate pair split across parts', () => {
    const bytes = Buffer.from('a😀b', 'utf16le').swap16();
    const text = assembleText([
      part(1, bytes.subarray(0, 4), { dataCoding: 8 }),
      part(2, bytes.subarray(4), { dataCoding: 8 }),
    ]);
    assert.equal(text, 'a😀b');
  });
});

describe('the schedule of a concatenated message', () => {
  it('is the latest any part asked for, whichever part carried it', () => {
    const p = (seq: number, scheduledAt: number | null): AssemblyPart =>
      part(seq, Buffer.from([0x41]), { scheduledAt, total: 3 });
    assert.equal(assembledSchedule([p(1, null), p(2, null), p(3, null)]), null);
    assert.equal(assembledSchedule([p(1, 5000), p(2, null), p(3, null)]), 5000);
    assert.equal(assembledSchedule([p(1, 5000), p(2, 7000), p(3, 6000)]), 7000);
    assert.equal(assembledSchedule([p(3, 9000), p(1, null), p(2, 8000)]), 9000);
  });
});
