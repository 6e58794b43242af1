/** The batcher behind group commit: one flush per turn, or per gathering time when set. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MicroBatcher } from '../../src/util/micro-batcher.js';
import { pause } from '../helpers/wait-for.js';

function recording(
  maxBatch: number,
  gatherMs?: number,
): { batcher: MicroBatcher<number, number>; flushes: number[][] } {
  const flushes: number[][] = [];
  const batcher = new MicroBatcher(
    async (items: number[]) => {
      flushes.push(items);
      return items.map((i) => i * 10);
    },
    maxBatch,
    gatherMs,
  );
  return { batcher, flushes };
}

describe('MicroBatcher', () => {
  it('flushes what one turn of the event loop added, each caller getting its own result', async () => {
    const { batcher, flushes } = recording(500);
    const first = [1, 2, 3].map((i) => batcher.add(i));
    // Lets the turn end on purpose: the next add belongs to another turn.
    await pause(5);
    const second = batcher.add(4);
    assert.deepEqual(await Promise.all(first), [10, 20, 30]);
    assert.equal(await second, 40);
    assert.deepEqual(flushes, [[1, 2, 3], [4]]);
  });

  it('with a gathering time, items added over several turns within it share one flush', async () => {
    // Long enough that the two pauses fall within it on a loaded machine.
    const { batcher, flushes } = recording(500, 1_000);
    const results = [batcher.add(1)];
    // The pauses let turns of the event loop pass on purpose: nothing to wait for.
    await pause(5);
    results.push(batcher.add(2));
    await pause(5);
    results.push(batcher.add(3));
    assert.deepEqual(await Promise.all(results), [10, 20, 30]);
    assert.deepEqual(flushes, [[1, 2, 3]]);
  });

  it('does not wait out the gathering time for a full batch', async () => {
    const { batcher, flushes } = recording(2, 10_000);
    const results = Promise.all([batcher.add(1), batcher.add(2)]);
    // One turn of the event loop, far short of the 10 s gathering time: the full batch is flushed.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(flushes, [[1, 2]], 'a full batch waited for the gathering time');
    assert.deepEqual(await results, [10, 20]);
  });
});
