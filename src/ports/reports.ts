/** What the customer's reads (/sms/status, /reports, the per-minute limit) find of sends and messages. */
import type { DeliveryState } from '../domain/delivery-state.js';
import type { SendKind } from './messages.js';

export interface MessageRecord {
  id: number;
  sendId: number;
  accountId: number;
  keyId: number;
  recipient: string;
  smsCount: number;
  operator: string;
  state: DeliveryState;
  detail: string | null;
  createdAt: number;
  submittedAt: number | null;
  doneAt: number | null;
  sender: string;
  sendKind: SendKind;
  scheduled: boolean;
}

export interface SendRecord {
  id: number;
  accountId: number;
  expandedCount: number;
  pending: boolean;
  kind: SendKind;
  sender: string;
  scheduledAt: number | null;
  totalNumbers: number;
  invalidNumbers: number;
  blockedNumbers: number;
  /** A commercial send's recipients left out for want of consent (İYS); null when not commercial. */
  iysSkipped: number | null;
  smsCost: number;
  createdAt: number;
  updatedAt: number;
  /** Paused or cancelled by its customer (src/ports/campaign-controls.ts); absent while it runs. */
  control?: 'paused' | 'cancelled';
}

/** One row of a campaign's detailed report. */
export interface ReportRow {
  id: number;
  recipient: string;
  operator: string;
  state: DeliveryState;
  createdAt: number;
  submittedAt: number | null;
  doneAt: number | null;
  /** Why it failed without being sent, when the store says (failed at once). */
  detail: string | null;
  /** SMS credits given back to its account for it (the refund keyed `message:<id>`), 0 if none. */
  refunded: number;
}

export interface StateCount {
  state: DeliveryState;
  count: number;
  /** Latest submit or report time among these messages. */
  lastChange: number | null;
}

/** An account's messages created in a period that are in one state now, and their SMS. */
export interface PeriodStateCount {
  state: DeliveryState;
  messages: number;
  sms: number;
}

export interface ReportStore {
  /** The account's messages created in [from, to), by their state now (statements). */
  periodStates(accountId: number, from: number, to: number): Promise<PeriodStateCount[]>;
  /** Messages of a send by state: the summary report's counters. */
  sendCounters(sendId: number): Promise<StateCount[]>;
  /** Messages of a send written out so far, in id order, a page at a time. */
  sendMessages(sendId: number, offset: number, limit: number): Promise<ReportRow[]>;
  /** Recipients the account's /sms/send requests recorded since an instant. */
  recipientsSince(accountId: number, since: number): Promise<number>;
  findMessage(id: number, accountId: number): Promise<MessageRecord | null>;
  findSend(id: number, accountId: number): Promise<SendRecord | null>;
}
