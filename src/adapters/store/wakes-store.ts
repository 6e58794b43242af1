/**
 * Wakes of other processes' job threads on a PostgreSQL store (postgres/wake-channel.ts):
 * NOTIFY, sent after the commit it tells of (`DialectSql.wake`); their LISTEN, on a
 * connection of its own, is opened by `listenForWakes` (open-store.ts). Nothing on SQLite,
 * where one process serves.
 */
import type { WakeJob, Wakes } from '../../ports/wakes.js';
import { StorePart } from './store-part.js';

export class SqlWakes extends StorePart implements Wakes {
  /** Whether wakes reach other processes (PostgreSQL). */
  get shared(): boolean {
    return this.sql.sharedByProcesses;
  }

  /** Wakes `job` in every process listening on this store. */
  notify(job: WakeJob): Promise<void> {
    return this.sql.wake(this.db, job);
  }
}
