/**
 * Wakes of other processes' job threads on a PostgreSQL store (postgres/wake-channel.ts):
 * NOTIFY, sent after the commit it tells of. Nothing on SQLite, where one process serves.
 */
import { sql } from 'kysely';
import { StorePart } from './store-part.js';
import { wakeChannel } from './postgres/wake-channel.js';
import type { WakeJob } from './postgres/wake-channel.js';

export class SqlWakes extends StorePart {
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
