/**
 * Where a store is (plain data, passed between threads) and how a thread of `serve` shares
 * it: the SQLite write lock the threads of one process take turns on, and who checkpoints.
 * The CLI and the thread entry files say what they need here and never reach further into
 * the store.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ThreadWriteLock } from './sqlite/thread-write-lock.js';
import type { LockRole } from './sqlite/thread-write-lock.js';

export type Dialect = 'sqlite' | 'postgres';

export type StoreLocation =
  /**
   * threadLock: the buffer of a ThreadWriteLock shared with the other threads of this
   * process on this file, and how this connection asks for it.
   *
   * checkpoints: 'auto' (SQLite's default) copies the WAL back into the database file
   * inside the commit that takes it past 1,000 pages, an fsync included: several
   * milliseconds in which that thread, and every thread waiting for the write lock, is held.
   * 'manual' leaves that to the store's `checkpoint()`, which one thread of the process calls
   * on a timer, outside any transaction and the write lock (`serve` with job threads).
   */
  | {
      dialect: 'sqlite';
      file: string;
      threadLock?: { buffer: SharedArrayBuffer; as: LockRole };
      checkpoints?: 'auto' | 'manual';
    }
  /**
   * cacheLookups: keep the lookup caches (keys with their accounts, balances, sender ID
   * checks) as SQLite does, emptied by what a LISTEN connection of their own hears of other
   * connections' commits (postgres/lookup-changes.ts); the HTTP thread of `serve` with
   * `--notify`. Without it every lookup is a query.
   *
   * statementTimeoutMs: how long a statement may run or wait for the server's answer (0:
   * unbounded, as migrations run; unset: open-postgres.ts's default).
   */
  | {
      dialect: 'postgres';
      url: string;
      schema?: string;
      poolSize?: number;
      cacheLookups?: boolean;
      statementTimeoutMs?: number;
    };

export function sqliteFileIn(dataDir: string): string {
  const dir = resolve(dataDir);
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new Error(`${dir} is not a folder (--data names the folder of the SQLite store)`);
  mkdirSync(dir, { recursive: true });
  return join(resolve(dataDir), 'haberci.sqlite');
}

/**
 * The location the HTTP thread of `serve` opens: on SQLite, with a new write lock its
 * job threads will share (see `asBackgroundThread`), and checkpoints made by one of
 * them on a timer ('manual') or by SQLite in its commits ('auto'). PostgreSQL: with lookup
 * caches kept by LISTEN when `listen` (the job threads keep none: see `asBackgroundThread`).
 */
export function sharedByThreads(
  location: StoreLocation,
  checkpoints: 'auto' | 'manual',
  listen = false,
): StoreLocation {
  if (location.dialect !== 'sqlite') return listen ? { ...location, cacheLookups: true } : location;
  return { ...location, threadLock: { buffer: new ThreadWriteLock().buffer, as: { role: 'foreground' } }, checkpoints };
}

/**
 * The location a job thread opens: the HTTP thread's write lock, asked for in the
 * background role (it waits while the HTTP thread is busy, for `yieldMs` at most). On
 * PostgreSQL, without lookup caches: the jobs look up no keys, and a cache would cost a
 * connection of its own.
 */
export function asBackgroundThread(location: StoreLocation, yieldMs: number): StoreLocation {
  if (location.dialect !== 'sqlite') return { ...location, cacheLookups: false };
  if (!location.threadLock) return location;
  return { ...location, threadLock: { buffer: location.threadLock.buffer, as: { role: 'background', yieldMs } } };
}
