/**
 * The parts of concatenated submits put together (src/smpp-server/assemblies.ts): the
 * bound on unfinished messages per user, a part sent again keeping its first id, the
 * time-out, a text decoded once over the joined payloads, and a message put back when the
 * API refused it for now.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Assemblies } from '../../src/smpp-server/assemblies.js';
import type { PartIn } from '../../src/smpp-server/assemblies.js';

const part = (over: Partial<PartIn> & { seq: number; id: string; bytes?: Buffer; at?: number }): PartIn => ({
  userId: 1,
  sourceAddr: 'ACME',
  destination: '905321112233',
  dataCoding: 0,
  reference: 7,
  total: 2,
  ...over,
  part: {
    seq: over.seq,
    payload: over.bytes ?? Buffer.from('ab'),
    table: 'default',
    partId: over.id,
    receipt: true,
    at: over.at ?? 0,
  },
});

describe('concatenated submits put together', () => {
  it('refuses a new message past the bound of unfinished ones per user, not another user\u2019s', () => {
    const a = new Assemblies({ maxPending: 2, timeoutMs: 1000 });
    assert.equal(a.add(part({ seq: 1, id: 'p1', reference: 1 })).kind, 'pending');
    assert.equal(a.add(part({ seq: 1, id: 'p2', reference: 2 })).kind, 'pending');
    assert.equal(a.add(part({ seq: 1, id: 'p3', reference: 3 })).kind, 'full');
    assert.equal(a.add(part({ seq: 1, id: 'p4', reference: 3, userId: 2 })).kind, 'pending');
    // A part of a message already started is not a new one.
    assert.equal(a.add(part({ seq: 2, id: 'p5', reference: 1 })).kind, 'complete');
    assert.equal(a.add(part({ seq: 1, id: 'p6', reference: 3 })).kind, 'pending');
  });

  it('answers a part sent again with the id it was first given, and joins the payloads before decoding', () => {
    const a = new Assemblies({ maxPending: 10, timeoutMs: 1000 });
    // "é" split: the ESC (0x1b) at the end of part 1, "e" (0x65) opens part 2 -> "€".
    assert.deepEqual(a.add(part({ seq: 1, id: 'first', bytes: Buffer.from([0x41, 0x1b]) })), {
      kind: 'pending',
      partId: 'first',
    });
    assert.deepEqual(a.add(part({ seq: 1, id: 'again', bytes: Buffer.from([0x41, 0x1b]) })), {
      kind: 'pending',
      partId: 'first',
    });
    const done = a.add(part({ seq: 2, id: 'last', bytes: Buffer.from([0x65, 0x42]) }));
    assert.equal(done.kind, 'complete');
    if (done.kind !== 'complete') return;
    assert.equal(done.text, 'A\u20acB');
    assert.deepEqual(
      done.others.map((p) => p.partId),
      ['first'],
    );
    assert.equal(a.size, 0);
  });

  it('puts a completed message back without its last part (refused for now), so the part sent again completes it', () => {
    const a = new Assemblies({ maxPending: 10, timeoutMs: 1000 });
    a.add(part({ seq: 2, id: 'second', bytes: Buffer.from('cd') }));
    const done = a.add(part({ seq: 1, id: 'first', bytes: Buffer.from('ab') }));
    assert.equal(done.kind, 'complete');
    if (done.kind !== 'complete') return;
    assert.equal(a.putBack(done.assembly, 1), true);
    assert.equal(a.putBack(done.assembly, 1), false, 'already back');
    const again = a.add(part({ seq: 1, id: 'retry', bytes: Buffer.from('ab') }));
    assert.equal(again.kind, 'complete');
    if (again.kind !== 'complete') return;
    assert.equal(again.text, 'abcd');
    assert.deepEqual(
      again.others.map((p) => p.partId),
      ['second'],
    );
    // The time-out still runs from the first part.
    a.putBack(again.assembly, 1);
    assert.equal(a.expire(1000).length, 1);
  });

  it('gives up a message not complete within the time-out from its first part', () => {
    const a = new Assemblies({ maxPending: 10, timeoutMs: 1000 });
    a.add(part({ seq: 1, id: 'old', at: 0 }));
    a.add(part({ seq: 1, id: 'new', reference: 8, at: 900 }));
    assert.deepEqual(a.expire(999), []);
    const gone = a.expire(1000);
    assert.deepEqual(
      gone.map((g) => [...g.parts.values()].map((p) => p.partId)),
      [['old']],
    );
    assert.equal(a.size, 1);
    assert.equal(a.drain().length, 1);
    assert.equal(a.size, 0);
  });
});
