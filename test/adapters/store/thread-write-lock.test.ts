/**
 * The write lock the threads of a process share, on its own and under two connections to
 * one SQLite file.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';
import { ThreadWriteLock, backgroundGapMs } from '../../../src/adapters/store/sqlite/thread-write-lock.js';
import { pause, waitFor } from '../../helpers/wait-for.js';

const backgroundMaxDelayMs = 50;
const asBackground = { role: 'background', yieldMs: backgroundMaxDelayMs } as const;

describe('the write lock shared by the threads of a process', () => {
  it('a second holder waits until the first releases, and is woken then', async () => {
    const first = new ThreadWriteLock();
    const second = new ThreadWriteLock(first.buffer);
    assert.equal(await first.acquire(Date.now() + 1000), true);
    let releasedAt = 0;
    const waiting = second.acquire(Date.now() + 5000).then((got) => ({ got, at: Date.now() }));
    await pause(50);
    releasedAt = Date.now();
    first.release();
    const { got, at } = await waiting;
    assert.equal(got, true);
    assert.ok(at >= releasedAt && at - releasedAt < 1000, `woken ${at - releasedAt} ms after the release`);
    // The second holds it now: the first waits for it.
    let firstAgain = false;
    const again = first.acquire(Date.now() + 1000).then((ok) => (firstAgain = ok));
    await pause(20);
    assert.equal(firstAgain, false);
    second.release();
    await again;
    assert.equal(firstAgain, true);
    first.release();
  });

  it('takes turns: a holder that releases and asks again comes after the one waiting', async () => {
    const busy = new ThreadWriteLock();
    const waiting = new ThreadWriteLock(busy.buffer);
    assert.equal(await busy.acquire(Date.now() + 1000), true);
    const order: string[] = [];
    const other = waiting.acquire(Date.now() + 1000).then(() => {
      order.push('waiting');
      waiting.release();
    });
    await pause(20);
    busy.release();
    const again = busy.acquire(Date.now() + 1000).then(() => {
      order.push('busy again');
      busy.release();
    });
    await Promise.all([other, again]);
    assert.deepEqual(order, ['waiting', 'busy again']);
  });

  it('a turn that comes after the deadline is refused and handed on', async () => {
    const holder = new ThreadWriteLock();
    const late = new ThreadWriteLock(holder.buffer);
    assert.equal(await holder.acquire(Date.now() + 1000), true);
    const refused = late.acquire(Date.now() + 30);
    await pause(80);
    holder.release();
    assert.equal(await refused, false);
    // The late ticket did not keep the lock: the next comer gets it at once.
    const third = new ThreadWriteLock(holder.buffer);
    assert.equal(await third.acquire(Date.now() + 50), true);
    third.release();
  });

  it('refuses a buffer too small for its cells (it would otherwise hang a waiter)', () => {
    assert.throws(() => new ThreadWriteLock(new SharedArrayBuffer(16)), /needs a buffer of \d+ bytes/);
  });

  it('is not shared between different buffers', async () => {
    const one = new ThreadWriteLock();
    const other = new ThreadWriteLock();
    assert.equal(await one.acquire(Date.now() + 10), true);
    assert.equal(await other.acquire(Date.now() + 10), true);
    one.release();
    other.release();
  });

  describe('the foreground (HTTP) goes first', () => {
    it('the background takes an idle lock at once', async () => {
      const background = new ThreadWriteLock(undefined, asBackground);
      const started = Date.now();
      assert.equal(await background.acquire(started + 1000), true);
      assert.ok(Date.now() - started < backgroundGapMs + 20);
      background.release();
    });

    it('the background waits until the foreground has been idle for the gap', async () => {
      const foreground = new ThreadWriteLock();
      const background = new ThreadWriteLock(foreground.buffer, asBackground);
      assert.equal(await foreground.acquire(Date.now() + 1000), true);
      foreground.release();
      const released = Date.now();
      assert.equal(await background.acquire(Date.now() + 1000), true);
      assert.ok(
        Date.now() - released >= backgroundGapMs - 1,
        `took it ${Date.now() - released} ms after the foreground's release`,
      );
      background.release();
    });

    it('a foreground that never pauses holds the background back at most the longest delay', async () => {
      const foreground = new ThreadWriteLock();
      const background = new ThreadWriteLock(foreground.buffer, asBackground);
      let busy = true;
      const traffic = (async () => {
        while (busy) {
          await foreground.acquire(Date.now() + 1000);
          await pause(1);
          foreground.release();
        }
      })();
      await pause(5);
      const started = Date.now();
      assert.equal(await background.acquire(started + 5000), true);
      const waited = Date.now() - started;
      background.release();
      busy = false;
      await traffic;
      assert.ok(waited >= backgroundMaxDelayMs - 5, `the background went ahead after ${waited} ms`);
      assert.ok(waited < backgroundMaxDelayMs + 200, `the background waited ${waited} ms`);
    });
  });

  it('a background that yields 0 ms does not wait for a busy foreground', async () => {
    const foreground = new ThreadWriteLock();
    const eager = new ThreadWriteLock(foreground.buffer, { role: 'background', yieldMs: 0 });
    assert.equal(await foreground.acquire(Date.now() + 1000), true);
    foreground.release();
    const started = Date.now();
    assert.equal(await eager.acquire(started + 1000), true);
    assert.ok(Date.now() - started < backgroundGapMs, 'it waited for the gap');
    eager.release();
  });
});
const account = (name: string) => ({
  name,
  status: 'Active' as const,
  balance_main: 0,
  balance_international: 0,
  per_minute_limit: 0,
  otp_brand: '',
  ip_allow: '[]',
  global_sending: 0,
  created_at: 1,
});

describe('two connections of one process on one SQLite file, sharing the lock', () => {
  it('a write outside a transaction waits for the other connection’s transaction with its event loop running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-lock-'));
    const file = join(dir, 'store.sqlite');
    const buffer = new ThreadWriteLock().buffer;
    const holder = openConnection({ dialect: 'sqlite', file, threadLock: { buffer, as: { role: 'foreground' } } });
    const writer = openConnection({
      dialect: 'sqlite',
      file,
      threadLock: { buffer, as: { role: 'background', yieldMs: 0 } },
    });
    let ticker: NodeJS.Timeout | undefined;
    let finish = (): void => undefined;
    const held = new Promise<void>((resolve) => (finish = resolve));
    try {
      await migrate(holder);
      const order: string[] = [];
      let ticks = 0;
      ticker = setInterval(() => (ticks += 1), 5);
      const transaction = holder.db.transaction().execute(async (trx) => {
        await trx.insertInto('accounts').values(account('In the transaction')).execute();
        order.push('holder wrote');
        await held;
        order.push('holder commits');
      });
      await pause(20);
      // One statement, no transaction: before, it waited in SQLite's busy handler with this
      // (the holder's) thread stopped, so the holder never committed and it failed after 5 s.
      const autocommit = writer.db
        .insertInto('accounts')
        .values(account('Autocommit'))
        .execute()
        .then(() => order.push('autocommit written'));
      const ticksBefore = ticks;
      // The event loop keeps turning while the write waits (a blocked loop never gets here).
      await waitFor('the event loop to turn while the write waits', () => ticks - ticksBefore >= 3, {
        timeoutMs: 5000,
      });
      assert.ok(!order.includes('autocommit written'), 'the write waited for the transaction');
      finish();
      await transaction;
      await autocommit;
      assert.deepEqual(order, ['holder wrote', 'holder commits', 'autocommit written']);
      const names = await holder.db.selectFrom('accounts').select('name').orderBy('id').execute();
      assert.deepEqual(
        names.map((r) => r.name),
        ['In the transaction', 'Autocommit'],
      );
    } finally {
      clearInterval(ticker);
      // A failed assertion above must not leave the transaction open: the writer's close
      // would wait for it for ever.
      finish();
      await writer.close();
      await holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
