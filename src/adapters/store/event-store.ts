import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookEventsTable } from './schema.js';
import type {
  AttemptLog,
  AttemptResult,
  ClaimedEvent,
  ClaimShare,
  EventRecord,
  EventStore,
  NewEvent,
  StoredEvent,
  WebhookTarget,
} from '../../ports/event-store.js';
import { claimFairly } from './fair-claim.js';
import type { WebhookEventType, WebhookStatus } from '../../domain/webhook.js';
import { DEFAULT_WEBHOOK_ATTEMPTS } from '../../domain/webhook.js';
import { applyOutcomes, newEventRow, resolveTargets, rowChunk, writeAttemptLogs } from './event-outbox.js';
import { StorePart } from './store-part.js';
import type { Executor } from './executor.js';
import { preparedQuery } from './prepared-query.js';
import { perDialect } from './dialect-sql.js';

type EventRow = Selectable<WebhookEventsTable>;

const noTarget = (keyId: number): WebhookTarget => ({
  keyId,
  url: null,
  secret: null,
  maxAttempts: DEFAULT_WEBHOOK_ATTEMPTS,
  retryScheduleMs: null,
  events: null,
});

function toLog(r: Selectable<WebhookAttemptsTable>): AttemptLog {
  return {
    attemptNo: r.attempt_no,
    manual: r.manual === 1,
    url: r.url,
    startedAt: Number(r.started_at),
    durationMs: r.duration_ms,
    httpStatus: r.http_status,
    error: r.error,
  };
}

function toFields(r: EventRow): StoredEvent {
  return {
    id: r.id,
    eventId: r.event_id,
    keyId: r.key_id,
    eventType: r.event_type as WebhookEventType,
    smsId: r.sms_id === null ? null : Number(r.sms_id),
    status: r.status as WebhookStatus | null,
    extra: r.data === null ? null : (JSON.parse(r.data) as Record<string, unknown>),
    state: r.state,
    attempts: r.attempts,
  };
}

/** The identifier an operator gives: the number of the row or the event_id receivers see. */
function byRef(ref: number | string) {
  return (eb: ExpressionBuilder<Database, 'webhook_events'>) =>
    typeof ref === 'number' ? eb('id', '=', ref) : eb('event_id', '=', ref);
}

// The claim of the webhook courier, compiled once per database and dialect.
const claimDue = perDialect((dialect) =>
  preparedQuery(
    (db, p: { now: number; limit: number; leaseUntil: number }) =>
      db
        .updateTable('webhook_events')
        // Claimed by the lease alone, the due time kept (see fair-claim.ts): an attempt that
        // never reports back (its worker died) is due again when the lease runs out.
        .set({ lease_until: p.leaseUntil })
        .where(
          'id',
          'in',
          db
            .selectFrom('webhook_events')
            .select('id')
            .where('state', '=', 'pending')
            .where('next_attempt_at', '<=', p.now)
            .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', p.now)]))
            .orderBy('next_attempt_at')
            .orderBy('id')
            .limit(p.limit)
            // Several workers on PostgreSQL: each skips rows another is claiming.
            .$call((qb) => dialect.claim(qb)),
        )
        .returningAll(),
    ['now', 'limit', 'leaseUntil'],
  ),
);

export class SqlEventStore extends StorePart implements EventStore {
  async createPending(event: NewEvent, now: number): Promise<void> {
    await this.db.insertInto('webhook_events').values(newEventRow(event, now)).execute();
  }

  private async claimed(
    db: Executor,
    rows: readonly EventRow[],
    dueAt: (r: EventRow) => number,
  ): Promise<ClaimedEvent[]> {
    const targets = await resolveTargets(
      db,
      rows.map((r) => r.key_id),
    );
    // Fields added to toFields' object, not spread into a new one: the spread showed in the worker's profile.
    return rows.map((r) =>
      Object.assign(toFields(r), {
        dueAt: dueAt(r),
        leaseUntil: Number(r.lease_until),
        target: targets.get(r.key_id) ?? noTarget(r.key_id),
      }),
    );
  }

  async createClaimed(event: NewEvent, now: number, leaseUntil: number): Promise<ClaimedEvent> {
    const row = await this.db
      .insertInto('webhook_events')
      .values(newEventRow(event, now, leaseUntil))
      .returningAll()
      .executeTakeFirstOrThrow();
    const [claimed] = await this.claimed(this.db, [row], () => now);
    if (!claimed) throw new Error('event vanished while being created');
    return claimed;
  }

  async claimDue(now: number, limit: number, leaseUntil: number, share?: ClaimShare): Promise<ClaimedEvent[]> {
    // One statement claims, but in a transaction all the same: on SQLite that waits for the
    // write lock the threads share (woken when it is free) instead of in SQLite's busy
    // handler, which sleeps 1-10 ms at a time with the worker's event loop stopped.
    return this.transact(async ({ db }) => {
      const rows = share
        ? await claimFairly(db, this.sql, { now, limit, leaseUntil }, share)
        : (await db.executeQuery(claimDue(this.sql)(db, { now, limit, leaseUntil }))).rows;
      rows.sort((a, b) => a.id - b.id);
      return this.claimed(db, rows, (r) => Number(r.next_attempt_at));
    });
  }

  async release(events: readonly Pick<ClaimedEvent, 'id' | 'leaseUntil'>[], now: number): Promise<void> {
    const byLease = new Map<number, number[]>();
    for (const e of events) byLease.set(e.leaseUntil, [...(byLease.get(e.leaseUntil) ?? []), e.id]);
    for (const [lease, ids] of byLease) {
      for (let start = 0; start < ids.length; start += rowChunk) {
        await this.db
          .updateTable('webhook_events')
          .set({ lease_until: null, next_attempt_at: now })
          .where('id', 'in', ids.slice(start, start + rowChunk))
          .where('lease_until', '=', lease)
          .where('state', '=', 'pending')
          .execute();
      }
    }
  }

  async claimOne(ref: number | string, now: number, leaseUntil: number): Promise<ClaimedEvent | 'busy' | null> {
    return this.transact(async ({ db }) => {
      const before = await db
        .selectFrom('webhook_events')
        .selectAll()
        .where(byRef(ref))
        .$call((qb) => this.sql.forUpdate(qb))
        .executeTakeFirst();
      if (!before) return null;
      const row = await db
        .updateTable('webhook_events')
        .set({
          lease_until: leaseUntil,
          next_attempt_at: before.state === 'pending' ? leaseUntil : before.next_attempt_at,
        })
        .where('id', '=', before.id)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .returningAll()
        .executeTakeFirst();
      if (!row) return 'busy';
      const [claimed] = await this.claimed(db, [row], () => Number(before.next_attempt_at));
      return claimed ?? null;
    });
  }

  async recordAttempts(results: readonly AttemptResult[], now: number): Promise<void> {
    if (results.length === 0) return;
    await this.transact(async ({ db }) => {
      await writeAttemptLogs(db, results);
      await applyOutcomes(db, results, now);
    });
  }

  private async withLogs(rows: readonly EventRow[]): Promise<EventRecord[]> {
    const logs = new Map<number, AttemptLog[]>();
    const ids = rows.map((r) => r.id);
    for (let start = 0; start < ids.length; start += rowChunk) {
      const attempts = await this.db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('event_ref', 'in', ids.slice(start, start + rowChunk))
        .orderBy('event_ref')
        .orderBy('attempt_no')
        .execute();
      for (const a of attempts) logs.set(a.event_ref, [...(logs.get(a.event_ref) ?? []), toLog(a)]);
    }
    return rows.map((r) => ({
      ...toFields(r),
      nextAttemptAt: Number(r.next_attempt_at),
      createdAt: Number(r.created_at),
      doneAt: r.done_at === null ? null : Number(r.done_at),
      log: logs.get(r.id) ?? [],
    }));
  }

  async findEvent(ref: number | string): Promise<EventRecord | null> {
    const row = await this.db.selectFrom('webhook_events').selectAll().where(byRef(ref)).executeTakeFirst();
    return row ? ((await this.withLogs([row]))[0] ?? null) : null;
  }

  /** The key and the keys it replaced by rotation: their events are delivered to its webhook. */
  private async keyWithReplaced(keyId: number): Promise<number[]> {
    const keys = [keyId];
    for (let i = 0; i < keys.length && keys.length <= 64; i++) {
      const older = await this.db
        .selectFrom('api_keys')
        .select('id')
        .where('replaced_by', '=', keys[i] ?? 0)
        .execute();
      keys.push(...older.map((k) => k.id).filter((id) => !keys.includes(id)));
    }
    return keys;
  }

  async recentForKey(keyId: number, limit: number): Promise<EventRecord[]> {
    const keys = await this.keyWithReplaced(keyId);
    const rows = await this.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('key_id', 'in', keys)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return this.withLogs(rows);
  }

  async requeueFailed(keyId: number, since: number, now: number): Promise<number> {
    const keys = await this.keyWithReplaced(keyId);
    const result = await this.db
      .updateTable('webhook_events')
      .set({ state: 'pending', attempts: 0, next_attempt_at: now, lease_until: null, done_at: null })
      .where('key_id', 'in', keys)
      .where('state', '=', 'failed')
      .where('created_at', '>=', since)
      // A manual attempt in flight holds a lease: its outcome decides that event.
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
