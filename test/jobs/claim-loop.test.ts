/**
 * The claim-loop engine on its own, with a scripted policy: its modes and their checked
 * transitions, wakes and stops at each point of a round, and backing off from a store error.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ClaimLoop } from '../../src/jobs/claim-loop.js';
import type { ClaimLoopMode, ClaimLoopOptions, ClaimPolicy, RoundOutcome } from '../../src/jobs/claim-loop.js';
import { WakeSignal } from '../../src/jobs/wake-signal.js';
import { pause, waitFor } from '../helpers/wait-for.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A policy whose every round waits for the test to end it (resolve an outcome, or reject as the store would). */
class ScriptedPolicy implements ClaimPolicy {
  readonly rounds: Deferred<RoundOutcome>[] = [];
  /** performance.now() when each round started. */
  readonly startedAt: number[] = [];
  gatherAfterIdle = 0;
  drains = 0;
  onDrain: () => void = () => undefined;

  round(): Promise<RoundOutcome> {
    const d = deferred<RoundOutcome>();
    this.rounds.push(d);
    this.startedAt.push(performance.now());
    return d.promise;
  }

  afterIdle(): number {
    return this.gatherAfterIdle;
  }

  drain(): void {
    this.drains += 1;
    this.onDrain();
  }

  /** The round in progress, once it has started. */
  async nth(n: number): Promise<Deferred<RoundOutcome>> {
    await waitFor(`round ${n + 1} to start`, () => this.rounds.length > n, { timeoutMs: 5_000, intervalMs: 1 });
    return this.rounds[n] as Deferred<RoundOutcome>;
  }
}

interface Rig {
  loop: ClaimLoop;
  policy: ScriptedPolicy;
  wake: WakeSignal;
  /** Every change of mode, as `from>to`. */
  modes: string[];
  errors: string[];
}

function rig(options: Partial<ClaimLoopOptions> = {}): Rig {
  const policy = new ScriptedPolicy();
  const wake = new WakeSignal();
  const modes: string[] = [];
  const errors: string[] = [];
  const log = pino(
    { level: 'error' },
    { write: (line: string) => void errors.push((JSON.parse(line) as { msg: string }).msg) },
  );
  const loop = new ClaimLoop(
    policy,
    {
      idleMs: 60_000,
      gatherMs: 60_000,
      backOffMs: 60_000,
      label: 'test',
      onMode: (from: ClaimLoopMode, to: ClaimLoopMode) => modes.push(`${from}>${to}`),
      ...options,
    },
    log,
    wake,
  );
  return { loop, policy, wake, modes, errors };
}

async function modeOf(loop: ClaimLoop, mode: ClaimLoopMode): Promise<void> {
  await waitFor(`mode ${mode}`, () => loop.mode === mode, { timeoutMs: 5_000, intervalMs: 1 });
}

/** Stops the loop and waits for the stop well inside the rig's 60 s intervals: it did not wait one out. */
async function stopsBeforeItsIntervals(loop: ClaimLoop): Promise<void> {
  const from = loop.mode;
  let stopped = false;
  const stopping = loop.stop().then(() => (stopped = true));
  await waitFor(`stopped from ${from} at once`, () => stopped, { timeoutMs: 10_000, intervalMs: 1 });
  await stopping;
}

describe('claim loop', () => {
  it('goes through its modes as rounds come back full, short and empty, and stops', async () => {
    const { loop, policy, modes } = rig({ idleMs: 20, gatherMs: 20 });
    assert.equal(loop.mode, 'starting');
    loop.start();
    assert.equal(loop.mode, 'claiming');
    (await policy.nth(0)).resolve('full');
    (await policy.nth(1)).resolve('short');
    (await policy.nth(2)).resolve('empty');
    const fourth = await policy.nth(3);
    assert.deepEqual(modes, [
      'starting>claiming',
      'claiming>gathering',
      'gathering>claiming',
      'claiming>idle',
      'idle>claiming',
    ]);
    const stopped = loop.stop();
    assert.equal(loop.mode, 'stopping');
    fourth.resolve('full');
    await stopped;
    assert.equal(loop.mode, 'stopped');
    assert.equal(policy.rounds.length, 4, 'no round starts once stopping');
    assert.equal(policy.drains, 1);
    assert.deepEqual(modes.slice(5), ['claiming>stopping', 'stopping>stopped']);
  });

  it('throws on an illegal transition: a second start, or a start while stopping', async () => {
    const { loop, policy } = rig();
    loop.start();
    assert.throws(() => loop.start(), /no transition from claiming to claiming/);
    const round = await policy.nth(0);
    const stopped = loop.stop();
    assert.throws(() => loop.start(), /no transition from stopping to claiming/);
    assert.equal(loop.stop(), stopped, 'a second stop waits for the same end');
    round.resolve('empty');
    await stopped;
    assert.equal(loop.mode, 'stopped');
    await loop.stop();
  });

  it('stops from starting without a round, and may start again once stopped', async () => {
    const { loop, policy, modes } = rig();
    await loop.stop();
    assert.equal(policy.rounds.length, 0);
    assert.equal(policy.drains, 1);
    loop.start();
    const round = await policy.nth(0);
    const stopped = loop.stop();
    round.resolve('empty');
    await stopped;
    assert.deepEqual(modes, [
      'starting>stopping',
      'stopping>stopped',
      'stopped>claiming',
      'claiming>stopping',
      'stopping>stopped',
    ]);
  });

  it('keeps a wake that comes during a round: the idle wait after it ends at once', async () => {
    const { loop, policy, wake } = rig({ idleMs: 60_000 });
    loop.start();
    const first = await policy.nth(0);
    wake.notify();
    first.resolve('empty');
    const second = await policy.nth(1);
    assert.ok(
      (policy.startedAt[1] ?? 0) - (policy.startedAt[0] ?? 0) < 1_000,
      'claimed again without waiting for the idle interval',
    );
    const stopped = loop.stop();
    second.resolve('empty');
    await stopped;
  });

  it('ends an idle wait when woken, and asks the policy whether to gather first', async () => {
    const { loop, policy, wake, modes } = rig({ idleMs: 60_000 });
    policy.gatherAfterIdle = 5;
    loop.start();
    (await policy.nth(0)).resolve('empty');
    await modeOf(loop, 'idle');
    wake.notify();
    const second = await policy.nth(1);
    assert.deepEqual(modes, ['starting>claiming', 'claiming>idle', 'idle>gathering', 'gathering>claiming']);
    const stopped = loop.stop();
    second.resolve('full');
    await stopped;
  });

  it('stops during a round: the round finishes, what it launched settles, then the loop has stopped', async () => {
    const { loop, policy } = rig();
    policy.onDrain = () => loop.launch();
    loop.start();
    const round = await policy.nth(0);
    let done = false;
    const stopped = loop.stop().then(() => (done = true));
    assert.equal(loop.mode, 'stopping');
    loop.launch();
    round.resolve('full');
    await pause(30);
    assert.equal(done, false, 'items launched by the round are still unsettled');
    assert.equal(loop.unsettled, 2, 'the round launched one, the drain another');
    loop.settle();
    await pause(10);
    assert.equal(done, false);
    loop.settle();
    await stopped;
    assert.equal(loop.mode, 'stopped');
    assert.equal(policy.rounds.length, 1);
  });

  it('stops at once from idle and from gathering, whatever their intervals', async () => {
    for (const outcome of ['empty', 'short'] as const) {
      const { loop, policy } = rig({ idleMs: 60_000, gatherMs: 60_000 });
      loop.start();
      (await policy.nth(0)).resolve(outcome);
      await modeOf(loop, outcome === 'empty' ? 'idle' : 'gathering');
      await stopsBeforeItsIntervals(loop);
      assert.equal(loop.mode, 'stopped');
      assert.equal(policy.rounds.length, 1);
    }
  });

  it('backs off after a round that throws (the store is away), logs it, and claims again', async () => {
    const { loop, policy, modes, errors } = rig({ backOffMs: 40 });
    loop.start();
    (await policy.nth(0)).reject(new Error('connection refused'));
    await modeOf(loop, 'backing-off');
    const second = await policy.nth(1);
    assert.ok((policy.startedAt[1] ?? 0) - (policy.startedAt[0] ?? 0) >= 35, 'waited the back-off first');
    assert.deepEqual(errors, ['test: store error; retrying shortly']);
    assert.deepEqual(modes, ['starting>claiming', 'claiming>backing-off', 'backing-off>claiming']);
    const stopped = loop.stop();
    second.resolve('full');
    await stopped;
  });

  it('cuts a back-off short on a wake, and on a stop', async () => {
    const { loop, policy, wake } = rig({ backOffMs: 60_000 });
    loop.start();
    (await policy.nth(0)).reject(new Error('connection refused'));
    await modeOf(loop, 'backing-off');
    wake.notify();
    (await policy.nth(1)).reject(new Error('connection refused'));
    await modeOf(loop, 'backing-off');
    await stopsBeforeItsIntervals(loop);
    assert.equal(policy.rounds.length, 2);
  });

  it('ends a wait for room when an item settles or room is freed', async () => {
    const { loop } = rig();
    loop.launch();
    let waited = loop.waitForRoom(60_000);
    loop.settle();
    await waited;
    waited = loop.waitForRoom(60_000);
    loop.roomFreed();
    await waited;
    assert.equal(loop.unsettled, 0);
  });
});
