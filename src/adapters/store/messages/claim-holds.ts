/**
 * What a claim does with messages of sends that have a window or a validity
 * (docs/decisions.md, "Send window, speed and validity"), in the claim's transaction: a
 * message past its validity ends `expired`, its credit given back once (refund key
 * `message:<id>`, as a cancel's) with its sms.failed event; one outside its window goes back
 * to the queue, due at the next opening. Only claims that took such messages come here: the
 * claim reads the send's two columns beside its text, and a send without them costs nothing more.
 */
import { sql } from 'kysely';
import type { Transition } from '../../../ports/dispatch-queue.js';
import { moves } from '../../../domain/delivery-state.js';
import { isTurkeyNumber } from '../../../domain/recipients.js';
import { claimVerdict, decodeWindow } from '../../../domain/send-controls.js';
import type { PartContext } from '../store-part.js';
import { SqlAccountStore } from '../accounts-store.js';
import { recordEvents } from './receipts.js';
import { RollupDeltas } from './rollups.js';

/** The reason of an expiry's refunds in the ledger (and in `refunds`). */
export const expiredReason = 'validity ended before sending';
export const expiredDetail = 'Validity period ended before sending';

export interface HeldRow {
  id: number | string;
  send_window: string | null;
  valid_until: number | string | null;
}

type ExpiredRow = {
  id: number | string;
  key_id: number;
  account_id: number;
  send_id: number | string;
  recipient: string;
  sms_count: number;
  created_at: number | string;
};

/** Whether some of a claim's messages belong to sends with a window or a validity. */
export function someHeld(rows: readonly HeldRow[]): boolean {
  return rows.some((r) => r.send_window !== null || r.valid_until !== null);
}

/** Decides on the claim's messages of such sends; answers the ids that are not to be submitted now. */
export async function holdAtClaim(part: PartContext, rows: readonly HeldRow[], now: number): Promise<Set<number>> {
  const held = new Set<number>();
  const expire: number[] = [];
  const waits = new Map<number, number[]>();
  const windows = new Map<string, ReturnType<typeof decodeWindow>>();
  for (const r of rows) {
    if (r.send_window === null && r.valid_until === null) continue;
    let window = null;
    if (r.send_window !== null) {
      window = windows.get(r.send_window) ?? decodeWindow(r.send_window);
      windows.set(r.send_window, window);
    }
    const verdict = claimVerdict(window, r.valid_until === null ? null : Number(r.valid_until), now);
    if (verdict.kind === 'submit') continue;
    const id = Number(r.id);
    held.add(id);
    if (verdict.kind === 'expire') expire.push(id);
    else waits.set(verdict.until, [...(waits.get(verdict.until) ?? []), id]);
  }
  const db = part.db;
  for (const [until, ids] of waits)
    // Back to the queue as it was before the claim (the claim counted an attempt).
    await db
      .updateTable('messages')
      .set({ state: moves.retry.to[0], due_at: until, lease_until: null, attempts: sql`attempts - 1` })
      .where('id', 'in', ids)
      .where('state', '=', moves.retry.from[0])
      .execute();
  if (expire.length > 0) await expireClaimed(part, expire, now);
  return held;
}

async function expireClaimed(part: PartContext, ids: readonly number[], now: number): Promise<void> {
  const db = part.db;
  const { rows } = await sql<ExpiredRow>`
    update messages set state = ${moves.lapse.to[0]}, done_at = ${now}, lease_until = null,
      attempts = attempts - 1, detail = ${expiredDetail}
    where id in (${sql.join(ids)}) and state in (${sql.join(moves.lapse.from)})
    returning id, key_id, account_id, send_id, recipient, sms_count, created_at`.execute(db);
  if (rows.length === 0) return;
  // Never submitted: the credit goes back, once whatever else refunds it (a cancel, a policy).
  const accounts = new SqlAccountStore(part);
  for (const sendId of new Set(rows.map((r) => Number(r.send_id))))
    await accounts.refund(
      rows
        .filter((r) => Number(r.send_id) === sendId)
        .map((r) => ({
          key: `message:${Number(r.id)}`,
          accountId: r.account_id,
          bucket: isTurkeyNumber(r.recipient) ? 'main' : 'international',
          amount: Number(r.sms_count),
        })),
      expiredReason,
      `send:${sendId}`,
      now,
    );
  const deltas = new RollupDeltas();
  for (const r of rows)
    deltas.moved(
      { account_id: r.account_id, send_id: Number(r.send_id), created_at: Number(r.created_at) },
      moves.lapse.from[0],
      moves.lapse.to[0],
    );
  await deltas.queue(db);
  const transitions: Transition[] = rows.map((r) => ({ messageId: Number(r.id), keyId: r.key_id, state: 'expired' }));
  await recordEvents(db, transitions, now);
}
