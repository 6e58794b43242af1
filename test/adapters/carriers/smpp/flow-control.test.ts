import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clusterRate, cutTo, SubmitGate } from '../../../../src/adapters/carriers/smpp/flow-control.js';

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

describe('SubmitGate pacing', () => {
  it('catches up after a stall at nearly the spacing, not in a burst', async () => {
    const gate = new SubmitGate(100, 20); // 50 ms apart
    const grants: number[] = [];
    const all = Array.from({ length: 6 }, () =>
      gate.acquire(Date.now() + 10_000).then((ok) => {
        assert.equal(ok, true);
        grants.push(Date.now());
        gate.release();
      }),
    );
    await new Promise((resolve) => setImmediate(resolve)); // the slots are taken, the first granted
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // a stall: every slot above is in the past when the loop comes back
    }
    await Promise.all(all);
    for (let i = 1; i < grants.length; i++) {
      const gap = (grants[i] as number) - (grants[i - 1] as number);
      assert.ok(gap >= 45, `grants ${i - 1} and ${i} only ${gap} ms apart`);
    }
  });
});

describe('SubmitGate at high rates', () => {
  it('grants back to back without a timer when the spacing is under a millisecond', async () => {
    const gate = new SubmitGate(10, 100_000);
    const real = globalThis.setTimeout;
    let timers = 0;
    const counting = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return real(...args);
    }) as typeof setTimeout;
    globalThis.setTimeout = counting;
    try {
      for (let i = 0; i < 300; i++) {
        assert.equal(await gate.acquire(Date.now() + 10_000), true);
        gate.release();
      }
    } finally {
      globalThis.setTimeout = real;
    }
    // A wait for the next tick at each grant would hold the link to about 1,000 a second.
    assert.ok(timers < 10, `${timers} timers for 300 grants at 100,000/s`);
  });
});

describe('SubmitGate rate (AIMD)', () => {
  it('halves the rate when the SMSC refuses for its pace, once per second at most, down to a floor', () => {
    const gate = new SubmitGate(10, 160);
    assert.equal(gate.rate, 160);
    gate.slowDown(10_000);
    assert.equal(gate.rate, 80);
    gate.slowDown(10_500);
    assert.equal(gate.rate, 80, 'the refusals of one window in flight are one signal');
    for (let s = 1; s <= 10; s++) gate.slowDown(10_000 + s * 1000);
    assert.equal(gate.rate, 10, 'a sixteenth of the configured rate at least');
  });

  it('grows the rate back with accepted submits, never above the configured one', () => {
    const gate = new SubmitGate(10, 100);
    gate.slowDown(0);
    assert.equal(gate.rate, 50);
    gate.speedUp();
    assert.ok(gate.rate > 50 && gate.rate < 51, `a little per accepted submit (${gate.rate})`);
    for (let i = 0; i < 10_000; i++) gate.speedUp();
    assert.equal(gate.rate, 100);
  });

  it('spaces submits by the lowered rate', async () => {
    const gate = new SubmitGate(10, 1_000_000);
    for (let i = 0; i < 30; i++) gate.slowDown(i * 1000);
    // 1,000,000 / 16 = 62,500 a second: still well under a millisecond apart.
    assert.equal(gate.rate, 62_500);
    assert.equal(await gate.acquire(Date.now() + 5000), true);
    gate.release();
  });
});

describe("a connection's rate for the cluster", () => {
  it('is the configured rate until cut, then grows back a tenth of it a second, whole after the cut', () => {
    assert.equal(clusterRate(100, null, 5_000), 100);
    const cut = { rate: cutTo(100, 100), cutAt: 10_000 };
    assert.equal(cut.rate, 50);
    assert.equal(clusterRate(100, cut, 10_000), 50);
    assert.equal(clusterRate(100, cut, 12_000), 70);
    assert.equal(clusterRate(100, cut, 20_000), 100);
    // Halvings stop at a sixteenth of the configured rate (1/s at least).
    assert.equal(cutTo(160, 12), 10);
    assert.equal(cutTo(8, 1.5), 1);
  });

  it('a bind follows its share: the pace and the ceiling it grows back to', () => {
    const gate = new SubmitGate(10, 100);
    gate.follow(25);
    assert.equal(gate.rate, 25);
    gate.slowDown(0);
    assert.equal(gate.rate, 12.5);
    for (let i = 0; i < 1000; i++) gate.speedUp();
    assert.equal(gate.rate, 25);
  });
});
