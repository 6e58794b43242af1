import type { DeliveryState, FinalState } from '../domain/delivery-state.js';
import type { CarrierReport, SmsLang } from './carrier.js';

export type SendKind = 'sms' | 'group' | 'mixed' | 'otp';

export interface NewSend {
  accountId: number;
  keyId: number;
  kind: SendKind;
  sender: string;
  /** The one text of the send; null when every message has its own (sendMixed). */
  text: string | null;
  lang: SmsLang;
  contentType: number;
  scheduledAt: number | null;
  sandbox: boolean;
  totalNumbers: number;
  invalidNumbers: number;
  blockedNumbers: number;
  smsCost: number;
  createdAt: number;
  priority: number;
  /** Encoded DeferredRecipients, or null when the messages are written with the send. */
  pendingRecipients: string | null;
}

export interface NewMessage {
  recipient: string;
  /** null: the send's text. */
  text: string | null;
  smsCount: number;
  operator: string;
  /** Set for a number that is failed at once without being submitted (an invalid number). */
  failedDetail?: string;
}

/** A bulk or scheduled send whose recipients are due to be written out as messages. */
export interface DueExpansion {
  id: number;
  accountId: number;
  keyId: number;
  kind: SendKind;
  text: string | null;
  lang: SmsLang;
  sandbox: boolean;
  priority: number;
  expandedCount: number;
  pendingRecipients: string;
}

/** What the messages of one send share. */
export interface MessageDefaults {
  id: number;
  accountId: number;
  keyId: number;
  sandbox: boolean;
  createdAt: number;
  dueAt: number;
  priority: number;
  /** Set when the messages are stored already claimed by this process's dispatcher (handed off), leased until then. */
  leaseUntil?: number;
}

/** A message claimed for submission, with what the carrier needs. */
export interface ClaimedMessage {
  id: number;
  sendId: number;
  keyId: number;
  recipient: string;
  text: string;
  sender: string;
  lang: SmsLang;
  sandbox: boolean;
  attempts: number;
}

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
  smsCost: number;
  createdAt: number;
  updatedAt: number;
}

/** A state change the pipeline made; events (webhooks) are derived from these. */
export interface Transition {
  messageId: number;
  keyId: number;
  state: DeliveryState;
  /** True when the change wrote a webhook event (in the same transaction). */
  webhookEvent?: boolean;
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
}

export interface StateCount {
  state: DeliveryState;
  count: number;
  /** Latest submit or report time among these messages. */
  lastChange: number | null;
}

/** A submit the carrier accepted: the ids it gave each part. */
export interface SentItem {
  messageId: number;
  carrier: string;
  carrierMessageIds: readonly string[];
}

export interface MessageStore {
  /** Messages of a send by state: the summary report's counters. */
  sendCounters(sendId: number): Promise<StateCount[]>;
  /** Messages of a send written out so far, in id order, a page at a time. */
  sendMessages(sendId: number, offset: number, limit: number): Promise<ReportRow[]>;
  /** `count` unused ids from the one id space of sends and messages, ascending. */
  allocateIds(count: number): Promise<number[]>;
  insertSend(id: number, send: NewSend): Promise<void>;
  /** Many sends in multi-row inserts. */
  insertSends(sends: readonly { id: number; send: NewSend }[]): Promise<void>;
  /** The messages of many sends, in multi-row inserts. */
  insertMessagesOf(groups: readonly { send: MessageDefaults; ids: readonly number[]; messages: readonly NewMessage[] }[]): Promise<void>;
  insertMessages(send: MessageDefaults, ids: readonly number[], messages: readonly NewMessage[]): Promise<void>;
  /** Recipients the account's /sms/send requests recorded since an instant. */
  recipientsSince(accountId: number, since: number): Promise<number>;
  /** Claims one send whose recipients are due to be written out, leasing it. */
  claimExpansion(now: number, leaseUntil: number): Promise<DueExpansion | null>;
  /**
   * Writes recipients [from, from + messages.length) of a send as messages, in one
   * transaction; `done` closes the send's list. False when another worker got there first.
   */
  expandChunk(send: DueExpansion, from: number, messages: readonly NewMessage[], done: boolean, now: number, leaseUntil: number): Promise<boolean>;
  /** Claims due queued messages (priority first), leasing them until `leaseUntil`. */
  claimDue(now: number, limit: number, leaseUntil: number): Promise<ClaimedMessage[]>;
  /**
   * Extends the leases of messages this worker still holds (state submitting, lease not yet
   * run out) to `until`; a lease that has run out is left alone, as another worker may have
   * taken the message since. Returns how many were extended.
   */
  extendLeases(ids: readonly number[], now: number, until: number): Promise<number>;
  /** Returns messages whose lease ran out (a worker died mid-submit) to the queue. */
  requeueExpiredLeases(now: number): Promise<number>;
  /** Records accepted submits (and their parts) in one transaction; one list of transitions per item. */
  markSentMany(items: readonly SentItem[], now: number): Promise<Transition[][]>;
  markRetry(messageId: number, dueAt: number, detail: string): Promise<void>;
  markFailed(messageId: number, detail: string, now: number): Promise<Transition | null>;
  /** Applies a delivery report; an unknown carrier id is kept until its message is known. */
  applyReport(report: CarrierReport, now: number): Promise<Transition | 'unmatched' | null>;
  applyReports(reports: readonly CarrierReport[], now: number): Promise<(Transition | 'unmatched' | null)[]>;
  /** Applies kept reports whose message has become known since. */
  retryUnmatchedReports(now: number): Promise<Transition[]>;
  /** Messages sent to a carrier and still waiting for a report (for a carrier that can replay reports). */
  awaitingReports(carrier: string, limit: number): Promise<{ carrierMessageId: string; recipient: string }[]>;
  findMessage(id: number, accountId: number): Promise<MessageRecord | null>;
  findSend(id: number, accountId: number): Promise<SendRecord | null>;
  findIdempotent(accountId: number, key: string): Promise<{ requestHash: string; response: string; createdAt: number } | null>;
  saveIdempotent(accountId: number, key: string, requestHash: string, response: string, now: number): Promise<boolean>;
  /** Releases a key claimed by a request that was then refused. */
  forgetIdempotent(accountId: number, key: string): Promise<void>;
}

export type { FinalState };
