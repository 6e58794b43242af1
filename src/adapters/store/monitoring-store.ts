/** The operations' reads: the queues' depths for a metrics scrape (src/ports/monitoring-store.ts). */
import { sql } from 'kysely';
import type { Backlog } from '../../ports/metrics.js';
import { backlogCap } from '../../ports/monitoring-store.js';
import { accountBacklogCap } from '../../ports/metrics.js';
import type { AttemptSample, MonitoringStore, TrafficMinute } from '../../ports/monitoring-store.js';
import { StorePart } from './store-part.js';
import { lanes, priorityOf } from '../../domain/lanes.js';

export class SqlMonitoringStore extends StorePart implements MonitoringStore {
  async backlog(now: number): Promise<Backlog> {
    // Each count reads at most backlogCap rows of an index (messages_due: state, priority,
    // due_at; webhook_events_due: state, next_attempt_at), so a deep queue costs a bounded scan.
    // Bulk and scheduled sends keep their recipients as one list until due (sends_pending, a
    // partial index over the few sends not yet written out): their recipients count too.
    const left = sql.raw('case when total_numbers > expanded_count then total_numbers - expanded_count else 0 end');
    const { rows } = await sql<{
      due: number | string;
      later: number | string;
      unwrittenDue: number | string | null;
      unwrittenLater: number | string | null;
      pending: number | string;
      oldest: number | string | null;
      held: number | string;
    }>`
      select
        (select count(*) from (select 1 from messages where state = 'queued' and due_at <= ${now} limit ${backlogCap}) d) as due,
        (select count(*) from (select 1 from messages where state = 'queued' and due_at > ${now} limit ${backlogCap}) l) as later,
        (select sum(${left}) from sends where pending_recipients is not null and (scheduled_at is null or scheduled_at <= ${now})) as "unwrittenDue",
        (select sum(${left}) from sends where pending_recipients is not null and scheduled_at > ${now}) as "unwrittenLater",
        (select count(*) from (select 1 from webhook_events where state = 'pending' limit ${backlogCap}) p) as pending,
        (select min(created_at) from (select created_at from webhook_events where state = 'pending' limit ${backlogCap}) o) as oldest,
        (select count(*) from otp_holds where released_at is null) as held
    `.execute(this.db);
    const row = rows[0];
    const lanesDue = await this.lanesDue(now);
    return {
      lanes: lanesDue,
      accounts: await this.accountsDue(now),
      dispatchDue: Number(row?.due ?? 0) + Number(row?.unwrittenDue ?? 0),
      scheduled: Number(row?.later ?? 0) + Number(row?.unwrittenLater ?? 0),
      webhookPending: Number(row?.pending ?? 0),
      webhookOldestAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
      otpHeldPrefixes: Number(row?.held ?? 0),
    };
  }

  /** Per lane: due messages (capped, read along messages_due) and the earliest due time among them (one seek). */
  private async lanesDue(now: number): Promise<NonNullable<Backlog['lanes']>> {
    const out = {} as NonNullable<Backlog['lanes']>;
    for (const lane of lanes) {
      const priority = priorityOf(lane);
      const { rows } = await sql<{ due: number | string; oldest: number | string | null }>`
        select
          (select count(*) from (select 1 from messages where state = 'queued' and priority = ${priority} and due_at <= ${now} limit ${backlogCap}) d) as due,
          (select min(due_at) from messages where state = 'queued' and priority = ${priority}) as oldest
      `.execute(this.db);
      const row = rows[0];
      const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
      out[lane] = { due: Number(row?.due ?? 0), oldestDueAt: oldest !== null && oldest <= now ? oldest : null };
    }
    return out;
  }

  /** The accounts with the most due messages (of at most backlogCap read along messages_due). */
  private async accountsDue(now: number): Promise<NonNullable<Backlog['accounts']>> {
    const { rows } = await sql<{ account_id: number | string; due: number | string }>`
      select account_id, count(*) as due
      from (select account_id from messages where state = 'queued' and due_at <= ${now} limit ${backlogCap}) d
      group by account_id
      order by count(*) desc, account_id
      limit ${accountBacklogCap}
    `.execute(this.db);
    return rows.map((r) => ({ accountId: Number(r.account_id), due: Number(r.due) }));
  }

  async addTraffic(source: string, minutes: readonly TrafficMinute[]): Promise<void> {
    if (minutes.length === 0) return;
    await this.db
      .insertInto('traffic_minutes')
      .values(
        minutes.map((m) => ({
          source,
          minute: m.minute,
          accepted: m.accepted,
          submitted: m.submitted,
          delivered: m.delivered,
          failed: m.failed,
          expired: m.expired,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['minute', 'source']).doUpdateSet((eb) => ({
          accepted: eb('traffic_minutes.accepted', '+', eb.ref('excluded.accepted')),
          submitted: eb('traffic_minutes.submitted', '+', eb.ref('excluded.submitted')),
          delivered: eb('traffic_minutes.delivered', '+', eb.ref('excluded.delivered')),
          failed: eb('traffic_minutes.failed', '+', eb.ref('excluded.failed')),
          expired: eb('traffic_minutes.expired', '+', eb.ref('excluded.expired')),
        })),
      )
      .execute();
  }

  async traffic(fromMinute: number): Promise<TrafficMinute[]> {
    const rows = await this.db
      .selectFrom('traffic_minutes')
      .select((eb) => [
        'minute',
        eb.fn.sum<number | string>('accepted').as('accepted'),
        eb.fn.sum<number | string>('submitted').as('submitted'),
        eb.fn.sum<number | string>('delivered').as('delivered'),
        eb.fn.sum<number | string>('failed').as('failed'),
        eb.fn.sum<number | string>('expired').as('expired'),
      ])
      .where('minute', '>=', fromMinute)
      .groupBy('minute')
      .orderBy('minute')
      .execute();
    return rows.map((r) => ({
      minute: Number(r.minute),
      accepted: Number(r.accepted),
      submitted: Number(r.submitted),
      delivered: Number(r.delivered),
      failed: Number(r.failed),
      expired: Number(r.expired),
    }));
  }

  async forgetTrafficBefore(minute: number): Promise<void> {
    await this.db.deleteFrom('traffic_minutes').where('minute', '<', minute).execute();
  }

  async attemptsSince(since: number, limit: number): Promise<AttemptSample[]> {
    const rows = await this.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_events as e', 'e.id', 'a.event_ref')
      .innerJoin('api_keys as k', 'k.id', 'e.key_id')
      .select(['a.url', 'a.duration_ms', 'a.started_at', 'a.http_status', 'e.key_id', 'k.account_id'])
      .where('a.started_at', '>=', since)
      .orderBy('a.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      url: r.url,
      durationMs: Number(r.duration_ms),
      startedAt: Number(r.started_at),
      ok: r.http_status !== null && r.http_status >= 200 && r.http_status < 300,
      keyId: Number(r.key_id),
      accountId: Number(r.account_id),
    }));
  }
}
