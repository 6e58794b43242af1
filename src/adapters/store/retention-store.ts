/**
 * One file, long because every table's sweep follows the same batch rule below, and
 * keeping them together keeps that rule in one place.
 *
 * Retention (src/ports/retention.ts): batches of finished rows older than the cut-off,
 * removed in one short transaction each. Tables with time-ordered ids (messages, sends,
 * webhook events, inbound messages: ids grow with time) are walked by id from the oldest,
 * `limit` rows a batch, so a batch reads at most `limit` rows through the primary key and
 * a walk ends at the first row younger than the cut-off; the two without ids are reached
 * through their time index (migration 0019).
 *
 * The rows a batch reads are its own until it commits (SQLite: the write lock, taken at
 * BEGIN IMMEDIATE; PostgreSQL: FOR UPDATE), so it deletes by id alone what it read as
 * finished. Deletes name nothing but ids on purpose: with `AND state IN (...)` SQLite's
 * planner took the `messages_due` index (state first) over the primary key and read every
 * finished message of the table for each batch (16 ms at 240,000 rows, against 1 ms).
 */
import type { RetentionStep, RetentionStore, RetentionTable } from '../../ports/retention.js';
import { sql } from 'kysely';
import { StorePart } from './store-part.js';

const finishedMessages = ['delivered', 'failed', 'expired', 'cancelled'] as const;
const finishedEvents = ['delivered', 'failed'] as const;

/** A walk by id: the batch read, the ids to remove, and where the walk goes on. */
function walk<R extends { id: number | string; at: number | string }>(
  rows: R[],
  before: number,
  limit: number,
  finished: (row: R) => boolean,
): { ids: number[]; next: number | null } {
  const ids: number[] = [];
  let younger = false;
  for (const row of rows) {
    if (Number(row.at) >= before) {
      younger = true;
      break;
    }
    if (finished(row)) ids.push(Number(row.id));
  }
  const last = rows[rows.length - 1];
  return { ids, next: younger || rows.length < limit || last === undefined ? null : Number(last.id) };
}

export class SqlRetentionStore extends StorePart implements RetentionStore {
  exclusively(work: () => Promise<void>): Promise<boolean> {
    return this.sql.exclusively(this.db, 'haberci.retention', work);
  }

  keepPartitions(
    before: number,
    widthIds: number,
    stopping: () => boolean = () => false,
  ): Promise<{ created: number; dropped: number }> {
    return this.sql.keepPartitions(this.db, before, widthIds, stopping);
  }

  removeBatch(table: RetentionTable, before: number, after: number, limit: number): Promise<RetentionStep> {
    return this.transact((self) => self.batchOf(table, before, after, limit));
  }

  private async batchOf(table: RetentionTable, before: number, after: number, limit: number): Promise<RetentionStep> {
    switch (table) {
      case 'messages':
        return this.messages(before, after, limit);
      case 'sends':
        return this.sends(before, after, limit);
      case 'webhook_events':
        return this.events(before, after, limit);
      case 'inbound_messages':
        return this.inbound(before, after, limit);
      case 'unmatched_reports':
        return this.unmatched(before, limit);
      case 'idempotency_keys':
        return this.idempotency(before, limit);
      case 'otp_codes':
        return this.otpCodes(before, after, limit);
      case 'otp_refusals':
        return this.otpRefusals(before, limit);
      case 'otp_holds':
        return this.otpHolds(before, limit);
      case 'refunds':
        return this.refunds(before, limit);
    }
  }

  /** Finished messages and their parts, a send's all together; unfinished ones (queued, submitting, sent) stay, however old, and so do the others of their send. */
  private async messages(before: number, after: number, limit: number): Promise<RetentionStep> {
    const rows = await this.sql
      .forUpdate(
        this.db
          .selectFrom('messages')
          .select(['id', 'send_id', 'state', 'created_at as at'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(limit),
      )
      .execute();
    const { ids, next } = walk(rows, before, limit, (r) => (finishedMessages as readonly string[]).includes(r.state));
    if (ids.length === 0) return { removed: 0, next };
    // A send's messages go together: none while another of its messages is unfinished or
    // its recipients are still being written out, so a report is whole or gone. Its rollup
    // row tells (delivered + failed = messages: finished counts never change) in one read
    // by key, where asking its messages would read every one of them for each candidate.
    const candidates = new Set(ids);
    const sendIds = [...new Set(rows.filter((r) => candidates.has(Number(r.id))).map((r) => Number(r.send_id)))];
    const complete = await this.db
      .selectFrom('sends')
      .leftJoin('send_counts', 'send_counts.send_id', 'sends.id')
      .select('sends.id')
      .where('sends.id', 'in', sendIds)
      .where('sends.pending_recipients', 'is', null)
      .where((eb) =>
        eb.or([
          eb(sql<number>`send_counts.delivered + send_counts.failed`, '>=', sql<number>`send_counts.messages`),
          // The rollups do not count cancelled messages: a cancelled send is whole when none
          // of its messages is left unfinished (asked only of cancelled sends).
          eb.and([
            eb('sends.control', '=', 'cancelled'),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('messages as u')
                  .select('u.id')
                  .whereRef('u.send_id', '=', 'sends.id')
                  .where('u.state', 'not in', [...finishedMessages]),
              ),
            ),
          ]),
        ]),
      )
      .execute();
    const whole = new Set(complete.map((r) => Number(r.id)));
    const gone = rows.filter((r) => candidates.has(Number(r.id)) && whole.has(Number(r.send_id)));
    if (gone.length === 0) return { removed: 0, next };
    const removable = gone.map((r) => Number(r.id));
    await this.db.deleteFrom('message_parts').where('message_id', 'in', removable).execute();
    // Their rows of the panel's number search (migration 0035) go with them.
    await this.db.deleteFrom('message_numbers').where('message_id', 'in', removable).execute();
    const deleted = await this.db.deleteFrom('messages').where('id', 'in', removable).executeTakeFirst();
    return { removed: Number(deleted.numDeletedRows), next };
  }

  /** Sends written out in full (no recipients pending) with no message left, and their rollup row. */
  private async sends(before: number, after: number, limit: number): Promise<RetentionStep> {
    const rows = await this.sql
      .forUpdate(
        this.db
          .selectFrom('sends')
          .select(['id', 'pending_recipients', 'created_at as at'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(limit),
      )
      .execute();
    const { ids, next } = walk(rows, before, limit, (r) => r.pending_recipients === null);
    if (ids.length === 0) return { removed: 0, next };
    const gone = await this.db
      .deleteFrom('sends')
      .where('id', 'in', ids)
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('messages').select('messages.id').whereRef('messages.send_id', '=', 'sends.id')),
        ),
      )
      .returning('id')
      .execute();
    if (gone.length > 0) {
      const goneIds = gone.map((r) => Number(r.id));
      await this.db.deleteFrom('send_counts').where('send_id', 'in', goneIds).execute();
      // Its short links expire with it (an old link answers 404), and their clicks go too.
      await this.db.deleteFrom('link_clicks').where('send_id', 'in', goneIds).execute();
      await this.db.deleteFrom('short_links').where('send_id', 'in', goneIds).execute();
    }
    return { removed: gone.length, next };
  }

  /** Webhook events delivered or given up, with their attempts; pending ones stay. */
  private async events(before: number, after: number, limit: number): Promise<RetentionStep> {
    const rows = await this.sql
      .forUpdate(
        this.db
          .selectFrom('webhook_events')
          .select(['id', 'state', 'created_at as at'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(limit),
      )
      .execute();
    const { ids, next } = walk(rows, before, limit, (r) => (finishedEvents as readonly string[]).includes(r.state));
    if (ids.length === 0) return { removed: 0, next };
    await this.db.deleteFrom('webhook_attempts').where('event_ref', 'in', ids).execute();
    const gone = await this.db.deleteFrom('webhook_events').where('id', 'in', ids).executeTakeFirst();
    return { removed: Number(gone.numDeletedRows), next };
  }

  private async inbound(before: number, after: number, limit: number): Promise<RetentionStep> {
    const rows = await this.db
      .selectFrom('inbound_messages')
      .select(['id', 'received_at as at'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
    const { ids, next } = walk(rows, before, limit, () => true);
    if (ids.length === 0) return { removed: 0, next };
    const gone = await this.db.deleteFrom('inbound_messages').where('id', 'in', ids).executeTakeFirst();
    return { removed: Number(gone.numDeletedRows), next };
  }

  /** Receipts that never found their message. */
  private async unmatched(before: number, limit: number): Promise<RetentionStep> {
    const rows = await this.db
      .selectFrom('unmatched_reports')
      .select('carrier_message_id')
      .where('received_at', '<', before)
      .orderBy('received_at')
      .limit(limit)
      .execute();
    if (rows.length === 0) return { removed: 0, next: null };
    const gone = await this.db
      .deleteFrom('unmatched_reports')
      .where(
        'carrier_message_id',
        'in',
        rows.map((r) => r.carrier_message_id),
      )
      .executeTakeFirst();
    return { removed: Number(gone.numDeletedRows), next: rows.length < limit ? null : 0 };
  }

  /** Idempotency keys: answered again for a day (idempotency-store.ts), so long past use at any cut-off. */
  private async idempotency(before: number, limit: number): Promise<RetentionStep> {
    const rows = await this.db
      .selectFrom('idempotency_keys')
      .select(['account_id', 'idem_key'])
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    if (rows.length === 0) return { removed: 0, next: null };
    const gone = await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', before)
      .where((eb) =>
        eb.or(rows.map((r) => eb.and([eb('account_id', '=', r.account_id), eb('idem_key', '=', r.idem_key)]))),
      )
      .executeTakeFirst();
    return { removed: Number(gone.numDeletedRows), next: rows.length < limit ? null : 0 };
  }

  /**
   * One-time codes, walked by message id (ids grow with time): long past their validity at
   * any cut-off (an hour at most), kept only while their message is unfinished, whose
   * dispatcher may still need the sealed text.
   */
  private async otpCodes(before: number, after: number, limit: number): Promise<RetentionStep> {
    const rows = await this.sql
      .forUpdate(
        this.db
          .selectFrom('otp_codes')
          .select(['message_id as id', 'created_at as at'])
          .where('message_id', '>', after)
          .orderBy('message_id')
          .limit(limit),
      )
      .execute();
    const { ids, next } = walk(rows, before, limit, () => true);
    if (ids.length === 0) return { removed: 0, next };
    const unfinished = await this.db
      .selectFrom('messages')
      .select('id')
      .where('id', 'in', ids)
      .where('state', 'not in', finishedMessages)
      .execute();
    const keep = new Set(unfinished.map((r) => Number(r.id)));
    const gone = ids.filter((id) => !keep.has(id));
    if (gone.length === 0) return { removed: 0, next };
    const deleted = await this.db.deleteFrom('otp_codes').where('message_id', 'in', gone).executeTakeFirst();
    return { removed: Number(deleted.numDeletedRows), next };
  }

  /** The OTP guard's refusals, through their time index (migration 0029); rows of one instant go together. */
  private async otpRefusals(before: number, limit: number): Promise<RetentionStep> {
    const rows = await this.db
      .selectFrom('otp_refusals')
      .select('at')
      .where('at', '<', before)
      .orderBy('at')
      .limit(limit)
      .execute();
    const last = rows[rows.length - 1];
    if (last === undefined) return { removed: 0, next: null };
    const gone = await this.db
      .deleteFrom('otp_refusals')
      .where('at', '<', before)
      .where('at', '<=', Number(last.at))
      .executeTakeFirst();
    return { removed: Number(gone.numDeletedRows), next: rows.length < limit ? null : 0 };
  }

  /** Holds released before the cut-off; a standing hold stays until the provider releases it. */
  private async otpHolds(before: number, limit: number): Promise<RetentionStep> {
    const rows = await this.db
      .selectFrom('otp_holds')
      .select(['key_id', 'prefix', 'held_at'])
      .where('held_at', '<', before)
      .where('released_at', 'is not', null)
      .where('released_at', '<', before)
      .orderBy('held_at')
      .limit(limit)
      .execute();
    if (rows.length === 0) return { removed: 0, next: null };
    const gone = await this.db
      .deleteFrom('otp_holds')
      .where((eb) =>
        eb.or(
          rows.map((r) =>
            eb.and([eb('key_id', '=', r.key_id), eb('prefix', '=', r.prefix), eb('held_at', '=', r.held_at)]),
          ),
        ),
      )
      .executeTakeFirst();
    return { removed: Number(gone.numDeletedRows), next: rows.length < limit ? null : 0 };
  }

  /**
   * Refunds' once-only keys (migration 0057) older than the cut-off whose message is gone:
   * nothing can earn that refund again. A key whose message is still kept stays with it.
   * The ledger rows of the credit given back are the account's history and stay.
   */
  private async refunds(before: number, limit: number): Promise<RetentionStep> {
    const rows = await this.db
      .selectFrom('refunds')
      .select('refund_key')
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    if (rows.length === 0) return { removed: 0, next: null };
    const messageOf = (key: string): number | null => (/^message:(\d+)$/.test(key) ? Number(key.slice(8)) : null);
    const ids = rows.map((r) => messageOf(r.refund_key)).filter((id): id is number => id !== null);
    const kept = new Set(
      ids.length === 0
        ? []
        : (await this.db.selectFrom('messages').select('id').where('id', 'in', ids).execute()).map((m) => Number(m.id)),
    );
    const gone = rows.map((r) => r.refund_key).filter((key) => !kept.has(messageOf(key) ?? -1));
    if (gone.length === 0) return { removed: 0, next: null };

    const deleted = await this.db.deleteFrom('refunds').where('refund_key', 'in', gone).executeTakeFirst();
    const removed = Number(deleted.numDeletedRows);
    // Kept keys stay at the head of the walk: it goes on only while a batch removes some.
    return { removed, next: rows.length === limit && removed > 0 ? 0 : null };
  }
}
