/** The operations' reads: the queues' depths for a metrics scrape (src/ports/monitoring-store.ts). */
import { sql } from 'kysely';
import type { Backlog } from '../../ports/metrics.js';
import { backlogCap } from '../../ports/monitoring-store.js';
import type { MonitoringStore } from '../../ports/monitoring-store.js';
import { StorePart } from './store-part.js';

export class SqlMonitoringStore extends StorePart implements MonitoringStore {
  async backlog(now: number): Promise<Backlog> {
    // Each count reads at most backlogCap rows of an index (messages_due: state, priority,
    // due_at; webhook_events_due: state, next_attempt_at), so a deep queue costs a bounded scan.
    const { rows } = await sql<{ due: number | string; later: number | string; pending: number | string; oldest: number | string | null }>`
      select
        (select count(*) from (select 1 from messages where state = 'queued' and due_at <= ${now} limit ${backlogCap}) d) as due,
        (select count(*) from (select 1 from messages where state = 'queued' and due_at > ${now} limit ${backlogCap}) l) as later,
        (select count(*) from (select 1 from webhook_events where state = 'pending' limit ${backlogCap}) p) as pending,
        (select min(created_at) from (select created_at from webhook_events where state = 'pending' limit ${backlogCap}) o) as oldest
    `.execute(this.db);
    const row = rows[0];
    return {
      dispatchDue: Number(row?.due ?? 0),
      scheduled: Number(row?.later ?? 0),
      webhookPending: Number(row?.pending ?? 0),
      webhookOldestAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
    };
  }
}
