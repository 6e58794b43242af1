/**
 * Writing webhook events and their attempts, and finding where events go. The message
 * store calls `recordTransitionEvents` on its own transaction, so an event exists exactly
 * when the state change that causes it has been committed.
 * One file, long because the outbox's writes (events, attempts, retries by due time) share
 * its statement builders and row shapes; split, each half would import the other's.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { Transition } from '../../ports/dispatch-queue.js';
import type { AttemptResult, NewEvent, WebhookTarget } from '../../ports/event-store.js';
import { webhookStatus } from '../../domain/delivery-state.js';
import {
  DEFAULT_WEBHOOK_ATTEMPTS,
  retryScheduleFromText,
  takesEvent,
  webhookEventsFromText,
} from '../../domain/webhook.js';
import type { WebhookEventType } from '../../domain/webhook.js';

import type { Executor } from './executor.js';
import type { WebhookAttemptsTable, WebhookEventsTable } from './schema.js';
import { columnsOf, preparedList, preparedRows } from './prepared-query.js';

/** Rows per multi-row statement: well inside both dialects' bound-parameter limits. */
export const rowChunk = 500;

/** Longer rotation chains than this are cut (a chain never loops, but the store is not trusted to prove it). */
const maxRotations = 32;

// The outbox's statements, compiled once per database (and per row count or padded list
// length): the job thread runs them for every batch, and building and compiling them
// cost more than running them.
const keyTargets = preparedList(
  (db, _: Record<string, never>, ids: number[]) =>
    db
      .selectFrom('api_keys')
      .select([
        'id',
        'account_id',
        'webhook_url',
        'webhook_secret',
        'webhook_attempts',
        'webhook_events',
        'webhook_retry_schedule',
        'webhook_batch',
        'webhook_batch_wait_ms',
        'replaced_by',
      ])
      .where('id', 'in', ids),
  [],
);
const smsMessages = preparedList(
  (db, _: Record<string, never>, ids: number[]) =>
    db
      .selectFrom('messages as m')
      .innerJoin('sends as s', 's.id', 'm.send_id')
      .select('m.id')
      .where('m.id', 'in', ids)
      .where('s.kind', '=', 'sms'),
  [],
);
/** The columns an sms.* event takes from its transition; the rest are those of every new event. */
type TransitionEvent = Pick<
  Insertable<WebhookEventsTable>,
  'event_id' | 'key_id' | 'event_type' | 'sms_id' | 'status' | 'next_attempt_at' | 'created_at'
>;
const eventsInsert = preparedRows(
  (db, rows: TransitionEvent[]) =>
    db
      .insertInto('webhook_events')
      .values(rows.map((r) => ({ ...r, state: 'pending' as const, attempts: 0, lease_until: null, done_at: null }))),
  columnsOf<TransitionEvent>({
    event_id: true,
    key_id: true,
    event_type: true,
    sms_id: true,
    status: true,
    next_attempt_at: true,
    created_at: true,
  }),
);
type AttemptRow = Omit<Insertable<WebhookAttemptsTable>, 'id' | 'attempt_no'> & { event_ref: number };
const attemptsInsert = preparedRows(
  (db, rows: AttemptRow[]) =>
    db.insertInto('webhook_attempts').values(
      rows.map((r) => ({
        ...r,
        attempt_no: sql<number>`(SELECT coalesce(max(a.attempt_no), 0) + 1 FROM webhook_attempts a WHERE a.event_ref = ${r.event_ref})`,
      })),
    ),
  columnsOf<AttemptRow>({
    event_ref: true,
    manual: true,
    url: true,
    started_at: true,
    duration_ms: true,
    http_status: true,
    error: true,
  }),
);
const acknowledge = preparedList(
  (db, p: { lease: number; now: number }, ids: number[]) =>
    db
      .updateTable('webhook_events')
      .set({ state: 'delivered', attempts: sql`attempts + 1`, lease_until: null, done_at: p.now })
      .where('id', 'in', ids)
      .where('lease_until', '=', p.lease),
  ['lease', 'now'],
);

/** Random bytes drawn 4 KiB at a time: one call to the CSPRNG per 341 event ids, not one each. */
const idBytes = 12;
let pool = Buffer.alloc(0);
let taken = 0;

/**
 * Opaque, unguessable (96 random bits) and unique without coordination between processes.
 * The 12 hex digits in front are the creation time in milliseconds: ids in creation order
 * land at the end of the unique index on event_id, where random ids each dirtied a page of
 * their own (measured: 15 µs an event inserted with random ids, 6–7 µs in time order).
 */
export function newEventId(): string {
  if (taken + idBytes > pool.length) {
    pool = randomBytes(4096);
    taken = 0;
  }
  taken += idBytes;
  return `evt_${Date.now().toString(16).padStart(12, '0')}${pool.subarray(taken - idBytes, taken).toString('base64url')}`;
}

/**
 * The row of a new pending event, due now; one its writer claims at once (`leaseUntil`) is
 * due when that lease runs out, as a claimed event is (see claimDue).
 */
export function newEventRow(
  event: NewEvent,
  now: number,
  leaseUntil: number | null = null,
): Insertable<WebhookEventsTable> {
  return {
    event_id: newEventId(),
    key_id: event.keyId,
    event_type: event.eventType,
    sms_id: event.smsId,
    status: event.status,
    data: event.extra === undefined ? null : JSON.stringify(event.extra),
    state: 'pending',
    attempts: 0,
    next_attempt_at: leaseUntil ?? now,
    lease_until: leaseUntil,
    created_at: now,
    done_at: null,
  };
}

export function hasUrl(target: WebhookTarget | undefined): target is WebhookTarget & { url: string } {
  return target !== undefined && target.url !== null && target.url !== '';
}

/**
 * The webhook settings each key's events go to: the key's own, or after a rotation those
 * of the key that replaced it (rotation moves the settings), read now.
 */
export async function resolveTargets(db: Executor, keyIds: readonly number[]): Promise<Map<number, WebhookTarget>> {
  const rows = new Map<
    number,
    {
      id: number;
      account_id: number;
      webhook_url: string | null;
      webhook_secret: string | null;
      webhook_attempts: number;
      webhook_events: string | null;
      webhook_retry_schedule: string | null;
      webhook_batch: number;
      webhook_batch_wait_ms: number;
      replaced_by: number | null;
    }
  >();
  let wanted = [...new Set(keyIds)];
  for (let depth = 0; wanted.length > 0 && depth <= maxRotations; depth++) {
    const { rows: found } = await db.executeQuery(keyTargets(db, {}, wanted));
    for (const r of found) rows.set(r.id, r);
    wanted = found.map((r) => r.replaced_by).filter((id): id is number => id !== null && !rows.has(id));
  }
  const out = new Map<number, WebhookTarget>();
  for (const keyId of keyIds) {
    let row = rows.get(keyId);
    for (let depth = 0; row && row.replaced_by !== null && depth < maxRotations; depth++) {
      const next = rows.get(row.replaced_by);
      if (!next) break;
      row = next;
    }
    if (!row) continue;
    const maxAttempts = row.webhook_attempts > 0 ? row.webhook_attempts : DEFAULT_WEBHOOK_ATTEMPTS;
    out.set(keyId, {
      keyId: row.id,
      accountId: row.account_id,
      url: row.webhook_url,
      secret: row.webhook_secret,
      maxAttempts,
      retryScheduleMs: retryScheduleFromText(row.webhook_retry_schedule),
      events: webhookEventsFromText(row.webhook_events),
      batch: row.webhook_batch,
      batchWaitMs: row.webhook_batch_wait_ms,
    });
  }
  return out;
}

const eventTypeOf = {
  sent: 'sms.sent',
  delivered: 'sms.delivered',
  failed: 'sms.failed',
  cancelled: 'sms.cancelled',
} as const satisfies Record<string, WebhookEventType>;

/**
 * Inserts the sms.* events of these transitions: only for messages of /sms/send (spec,
 * /sms/send rule 6) and only when the key's webhook (after rotation) has a URL. The first
 * attempt is due at once. Returns the transitions that got an event.
 */
export async function recordTransitionEvents<T extends Transition>(
  db: Executor,
  transitions: readonly T[],
  now: number,
): Promise<T[]> {
  const relevant = transitions.filter((t) => webhookStatus(t.state) !== null);
  if (relevant.length === 0) return [];
  const targets = await resolveTargets(
    db,
    relevant.map((t) => t.keyId),
  );
  // Only to webhooks that take the event (key --webhook-events; all by default).
  const hooked = relevant.filter((t) => {
    const target = targets.get(t.keyId);
    const status = webhookStatus(t.state);
    return hasUrl(target) && status !== null && takesEvent(target.events, eventTypeOf[status]);
  });
  if (hooked.length === 0) return [];
  const ofSms = new Set<number>();
  const ids = [...new Set(hooked.map((t) => t.messageId))];
  for (let start = 0; start < ids.length; start += rowChunk) {
    const { rows } = await db.executeQuery(smsMessages(db, {}, ids.slice(start, start + rowChunk)));
    for (const r of rows) ofSms.add(Number(r.id));
  }
  const evented = hooked.filter((t) => ofSms.has(t.messageId));
  const events = evented.flatMap((t) => {
    const status = webhookStatus(t.state);
    if (status === null) return [];
    return [
      {
        event_id: newEventId(),
        key_id: t.keyId,
        event_type: eventTypeOf[status],
        sms_id: t.messageId,
        status,
        next_attempt_at: now,
        created_at: now,
      },
    ];
  });
  for (let start = 0; start < events.length; start += rowChunk) {
    await db.executeQuery(eventsInsert(db, events.slice(start, start + rowChunk)));
  }
  return evented;
}

/** One log row per attempt, numbered after the event's earlier attempts. */
export async function writeAttemptLogs(db: Executor, results: readonly AttemptResult[]): Promise<void> {
  for (let start = 0; start < results.length; start += rowChunk) {
    const rows = results.slice(start, start + rowChunk).map((r) => ({
      event_ref: r.id,
      manual: r.attempt.manual ? 1 : 0,
      url: r.attempt.url,
      started_at: r.attempt.startedAt,
      duration_ms: r.attempt.durationMs,
      http_status: r.attempt.httpStatus,
      error: r.attempt.error,
    }));
    await db.executeQuery(attemptsInsert(db, rows));
  }
}

/**
 * Moves each event on as its attempt decided, only where the attempt still holds the
 * lease (`lease_until` is the holder's token): a late outcome keeps just its log.
 */
export async function applyOutcomes(db: Executor, results: readonly AttemptResult[], now: number): Promise<void> {
  // The common case, automatic attempts acknowledged, is one statement per claim batch.
  const acknowledged = new Map<number, number[]>();
  for (const r of results) {
    if (r.attempt.manual || r.state !== 'delivered') continue;
    const ids = acknowledged.get(r.leaseUntil);
    if (ids) ids.push(r.id);
    else acknowledged.set(r.leaseUntil, [r.id]);
  }
  for (const [lease, ids] of acknowledged) {
    for (let start = 0; start < ids.length; start += rowChunk) {
      await db.executeQuery(acknowledge(db, { lease, now }, ids.slice(start, start + rowChunk)));
    }
  }
  for (const r of results) {
    if (!r.attempt.manual && r.state === 'delivered') continue;
    await db
      .updateTable('webhook_events')
      .set({
        state: r.state,
        // Manual attempts (redeliveries) do not count against the key's attempts.
        attempts: r.attempt.manual ? sql`attempts` : sql`attempts + 1`,
        next_attempt_at: r.nextAttemptAt,
        lease_until: null,
        done_at:
          r.state === 'pending'
            ? null
            : sql`CASE WHEN state = ${r.state} AND done_at IS NOT NULL THEN done_at ELSE ${now} END`,
      })
      .where('id', '=', r.id)
      .where('lease_until', '=', r.leaseUntil)
      .execute();
  }
}

/**
 * The sms.failed events of messages failed as they were written, that carry fields of
 * their own (recipients left out of a commercial send): one each, with those fields in its
 * `data`, when the key's webhook (after rotation) has a URL and takes sms.failed.
 */
export async function recordFailedAtOnce(
  db: Executor,
  items: readonly { keyId: number; messageId: number; extra: Record<string, unknown> }[],
  now: number,
): Promise<void> {
  if (items.length === 0) return;
  const targets = await resolveTargets(
    db,
    items.map((i) => i.keyId),
  );
  const rows = items
    .filter((i) => {
      const target = targets.get(i.keyId);
      return hasUrl(target) && takesEvent(target.events, 'sms.failed');
    })
    .map((i) => ({
      event_id: newEventId(),
      key_id: i.keyId,
      event_type: 'sms.failed' as const,
      sms_id: i.messageId,
      status: 'failed' as const,
      data: JSON.stringify(i.extra),
      state: 'pending' as const,
      attempts: 0,
      next_attempt_at: now,
      lease_until: null,
      created_at: now,
      done_at: null,
    }));
  for (let start = 0; start < rows.length; start += rowChunk / 2) {
    await db
      .insertInto('webhook_events')
      .values(rows.slice(start, start + rowChunk / 2))
      .execute();
  }
}
