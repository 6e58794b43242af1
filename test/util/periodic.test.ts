/** Periodic: rounds one after another (never two at once), `stopping` seen inside a round, stop() waits for it. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Periodic } from '../../src/util/periodic.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('runs rounds one after another, goes on after a round that throws, and stops after the round in progress', async () => {
  let active = 0;
  let most = 0;
  let rounds = 0;
  let sawStopping = false;
  let release: () => void = () => undefined;
  const periodic: Periodic = new Periodic(async () => {
    active += 1;
    most = Math.max(most, active);
    rounds += 1;
    try {
      if (rounds === 2) throw new Error('a failed round');
      if (rounds === 4) {
        // The fourth round waits until the test stops the rounds, then sees it.
        await new Promise<void>((resolve) => (release = resolve));
        sawStopping = periodic.stopping;
      } else await tick(5);
    } finally {
      active -= 1;
    }
  }, 1);
  assert.equal(periodic.stopping, false);
  periodic.start(0);
  while (rounds < 4) await tick(2);
  const stopped = periodic.stop();
  let done = false;
  void stopped.then(() => (done = true));
  await tick(20);
  assert.equal(done, false, 'stop() waits for the round in progress');
  release();
  await stopped;
  assert.equal(sawStopping, true);
  assert.equal(most, 1, 'never two rounds at once');
  await tick(20);
  assert.equal(rounds, 4, 'no round after stop()');
});
