import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadWriteLock } from '../../src/adapters/store/thread-write-lock.js';

describe('the write lock shared by the threads of a process', () => {
  it('a second holder waits until the first releases, and is woken then', async () => {
    const first = new ThreadWriteLock();
    const second = new ThreadWriteLock(first.buffer);
    assert.equal(await first.acquire(Date.now() + 1000), true);
    let releasedAt = 0;
    const waiting = second.acquire(Date.now() + 5000).then((got) => ({ got, at: Date.now() }));
    await new Promise((r) => setTimeout(r, 50));
    releasedAt = Date.now();
    first.release();
    const { got, at } = await waiting;
    assert.equal(got, true);
    assert.ok(at >= releasedAt && at - releasedAt < 1000, `woken ${at - releasedAt} ms after the release`);
    // Now the second holds it: the first cannot take it until it is released.
    assert.equal(await first.acquire(Date.now() + 20), false);
    second.release();
    assert.equal(await first.acquire(Date.now() + 20), true);
    first.release();
  });

  it('gives up at the deadline while the lock stays taken', async () => {
    const holder = new ThreadWriteLock();
    assert.equal(await holder.acquire(Date.now() + 1000), true);
    const started = Date.now();
    assert.equal(await new ThreadWriteLock(holder.buffer).acquire(started + 60), false);
    assert.ok(Date.now() - started >= 55);
    holder.release();
  });

  it('is not shared between different buffers', async () => {
    const one = new ThreadWriteLock();
    const other = new ThreadWriteLock();
    assert.equal(await one.acquire(Date.now() + 10), true);
    assert.equal(await other.acquire(Date.now() + 10), true);
    one.release();
    other.release();
  });
});
