import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SubmitGate } from '../../../../src/adapters/carriers/smpp/flow-control.js';

describe('SubmitGate', () => {
  it('holds a submit past the window until a slot is released', async () => {
    const gate = new SubmitGate(1, 1_000_000);
    assert.equal(await gate.acquire(Date.now() + 5000), true);
    let second: boolean | undefined;
    const waiting = gate.acquire(Date.now() + 5000).then((ok) => (second = ok));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(second, undefined);
    assert.equal(gate.pending, 1);
    gate.release();
    await waiting;
    assert.equal(second, true);
    assert.equal(gate.pending, 1);
    gate.release();
    assert.equal(gate.pending, 0);
  });

  it('gives up at the deadline without taking a slot', async () => {
    const gate = new SubmitGate(1, 1_000_000);
    assert.equal(await gate.acquire(Date.now() + 5000), true);
    assert.equal(await gate.acquire(Date.now() + 20), false);
    gate.release();
    assert.equal(gate.pending, 0);
  });

  it('refuses a pacing slot that lies past the deadline', async () => {
    const gate = new SubmitGate(10, 1); // one submit per second
    assert.equal(await gate.acquire(Date.now() + 5000), true);
    assert.equal(await gate.acquire(Date.now() + 100), false, 'the next slot is a second away');
    assert.equal(gate.pending, 1);
  });
});
