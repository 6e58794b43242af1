/**
 * Wakes of other processes' job threads on a PostgreSQL store (postgres/wake-channel.ts):
 * NOTIFY, sent after the commit it tells of, and LISTEN on a connection of its own. Nothing
 * on SQLite, where one process serves.
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { WakeJob, WakeListener, Wakes } from '../../ports/wakes.js';
import type { StoreLocation } from './store-location.js';
import { StorePart } from './store-part.js';
import { PgWakeListener, wakeChannel } from './postgres/wake-channel.js';

export class SqlWakes extends StorePart implements Wakes {
  /** Whether wakes reach other processes (PostgreSQL). */
  get shared(): boolean {
    return this.dialect === 'postgres';
  }

  /** Wakes `job` in every process listening on this store. */
  async notify(job: WakeJob): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await sql`select pg_notify(${wakeChannel}, current_schema() || ':' || ${job})`.execute(this.db);
  }
}

/**
 * Listens for other processes' wakes of `job` at `location`, on a connection of its own, and
 * calls `onWake` for each; null on SQLite (no other process to hear from). Resolves once
 * listening or after the first failed try (it keeps trying).
 */
export async function listenForWakes(
  location: StoreLocation,
  job: WakeJob,
  onWake: () => void,
  log: Logger,
): Promise<WakeListener | null> {
  if (location.dialect !== 'postgres') return null;
  const listener = new PgWakeListener(location, job, onWake, log);
  await listener.start();
  return listener;
}
