import type { Insertable } from 'kysely';
import type { MessagesTable, SendsTable } from '../schema.js';
import type { MessageDefaults, NewMessage, NewSend } from '../../../ports/messages.js';
import type { CarrierReceipt } from '../../../ports/carrier.js';
import type { FinalState } from '../../../domain/delivery-state.js';
import { encodeWindow } from '../../../domain/send-controls.js';

/** Row builders shared by the message store's writes. */
export function toReceipt(r: {
  carrier_message_id: string;
  state: CarrierReceipt['status'];
  detail: string | null;
  done_at: number | null;
}): CarrierReceipt {
  return {
    carrierMessageId: r.carrier_message_id,
    status: r.state,
    detail: r.detail ?? undefined,
    doneAt: r.done_at === null ? undefined : Number(r.done_at),
  };
}

export function sendRow(id: number, s: NewSend): Insertable<SendsTable> {
  return {
    id,
    account_id: s.accountId,
    key_id: s.keyId,
    kind: s.kind,
    sender: s.sender,
    text: s.text,
    lang: s.lang,
    content_type: s.contentType,
    scheduled_at: s.scheduledAt,
    sandbox: s.sandbox ? 1 : 0,
    total_numbers: s.totalNumbers,
    invalid_numbers: s.invalidNumbers,
    blocked_numbers: s.blockedNumbers,
    sms_cost: s.smsCost,
    pending_recipients: s.pendingRecipients,
    short_links: s.shortLinks === true ? 1 : 0,
    expanded_count: 0,
    expand_lease_until: null,
    priority: s.priority,
    created_at: s.createdAt,
    updated_at: s.createdAt,
    iys: s.iys ? JSON.stringify(s.iys) : null,
    send_window: s.controls?.window ? encodeWindow(s.controls.window) : null,
    speed: s.controls?.speed ?? null,
    valid_until: s.controls?.validUntil ?? null,
    pace_next_at: s.controls?.paceNextAt ?? null,
  };
}

export function messageRow(send: MessageDefaults, id: number, m: NewMessage): Insertable<MessagesTable> {
  const failed = m.failedDetail !== undefined;
  const handed = !failed && send.leaseUntil !== undefined;
  return {
    id,
    send_id: send.id,
    account_id: send.accountId,
    key_id: send.keyId,
    recipient: m.recipient,
    text: m.text,
    sms_count: m.smsCount,
    operator: m.operator,
    state: failed ? 'failed' : handed ? 'submitting' : 'queued',
    priority: send.priority,
    due_at: m.dueAt ?? send.dueAt,
    lease_until: handed ? (send.leaseUntil ?? null) : null,
    attempts: handed ? 1 : 0,
    carrier: null,
    submitted_at: null,
    done_at: failed ? send.createdAt : null,
    detail: m.failedDetail ?? null,
    sandbox: send.sandbox ? 1 : 0,
    created_at: send.createdAt,
  };
}

/** What a report writes to its part (and, when it settles it, its message). */
export interface ReceiptOutcome {
  state: FinalState;
  detail: string | null;
  doneAt: number;
}

export function outcomeOf(r: CarrierReceipt, now: number): ReceiptOutcome {
  return { state: r.status, detail: r.detail ?? null, doneAt: r.doneAt ?? now };
}

/** Items grouped by equal outcome, groups in order of first appearance: one UPDATE per group. */
export function groupByOutcome<T>(
  items: readonly T[],
  outcome: (item: T) => ReceiptOutcome,
): { outcome: ReceiptOutcome; items: T[] }[] {
  const groups = new Map<string, { outcome: ReceiptOutcome; items: T[] }>();
  for (const item of items) {
    const o = outcome(item);
    const key = `${o.state}|${o.doneAt}|${o.detail === null ? '' : `=${o.detail}`}`;
    const group = groups.get(key);
    if (group) group.items.push(item);
    else groups.set(key, { outcome: o, items: [item] });
  }
  return [...groups.values()];
}
