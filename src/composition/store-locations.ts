/**
 * Where each kind of process finds its store: the options' store, the one `serve`'s threads
 * share, a job thread's view of it, the warm-up's throwaway one. Locations are plain data
 * (they cross to the job threads); what they name is opened by openAppContainer.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import {
  asBackgroundThread,
  describeLocation,
  sharedByThreads,
  sqliteFileIn,
  storeExists,
} from '../adapters/store/index.js';
import type { StoreLocation } from '../adapters/store/index.js';
import { openAppContainer } from './container.js';

export function storeLocation(
  config: Pick<Config, 'data' | 'database'> & Partial<Pick<Config, 'storeStatementTimeoutMs'>>,
): StoreLocation {
  if (!config.database) return { dialect: 'sqlite', file: sqliteFileIn(config.data) };
  const bound = config.storeStatementTimeoutMs;
  return { dialect: 'postgres', url: config.database, ...(bound !== undefined ? { statementTimeoutMs: bound } : {}) };
}

/**
 * The store of `serve`: on SQLite the HTTP thread and the job threads share one write lock
 * in memory, and with job threads the dispatch thread checkpoints the WAL, so no commit does.
 * On PostgreSQL with `--notify`, the HTTP thread keeps lookup caches emptied by LISTEN.
 */
export function serveLocation(
  config: Pick<Config, 'data' | 'database' | 'worker' | 'notify' | 'storeStatementTimeoutMs'>,
): StoreLocation {
  return sharedByThreads(storeLocation(config), config.worker ? 'manual' : 'auto', config.notify);
}

/** A job thread's view of `serve`'s store: the HTTP thread goes first for the write lock, for up to `yieldMs`. */
export function jobThreadLocation(location: StoreLocation, yieldMs: number): StoreLocation {
  return asBackgroundThread(location, yieldMs);
}

/** The warm-up's throwaway store in `dir`: SQLite, its write lock shared between threads as `serve` runs it. */
export function warmUpLocation(dir: string): StoreLocation {
  return sharedByThreads({ dialect: 'sqlite', file: sqliteFileIn(dir) }, 'auto');
}

/** No store where the options point: only `serve` and `admin store init` create one. */
export class MissingStoreError extends Error {}

/**
 * The store the options name, if it exists (for the admin commands, which never create
 * one). A missing --data folder is not made: sqliteFileIn would make it.
 */
export async function existingStoreLocation(config: Pick<Config, 'data' | 'database'>): Promise<StoreLocation> {
  const start = 'no store at';
  const hint = '(`haberci serve` or `haberci admin store init` creates one)';
  if (!config.database && !existsSync(resolve(config.data)))
    throw new MissingStoreError(`${start} ${resolve(config.data)} ${hint}`);
  const location = storeLocation(config);
  if (!(await storeExists(location))) throw new MissingStoreError(`${start} ${describeLocation(location)} ${hint}`);
  return location;
}

/** `admin store init`: creates the store, or brings an existing one's schema up to date. */
export async function initStore(
  config: Pick<Config, 'data' | 'database'>,
): Promise<{ store: string; created: boolean }> {
  const location = storeLocation(config);
  const created = !(await storeExists(location));
  const container = await openAppContainer(location);
  await container.close();
  return { store: describeLocation(location), created };
}
