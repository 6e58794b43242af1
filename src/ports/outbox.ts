/**
 * The outbox: every consequence of a commit that a consumer carries out later is a row
 * written in the transaction of that commit, so a crash after the commit loses none of them
 * (docs/decisions.md, "One outbox"). A consumer claims due rows with a lease in the store
 * (its name and an expiry): a row is held by one process at a time, and a row whose lease
 * ran out (its holder died, or nobody answered) is due again for any process. A row carried
 * out is deleted.
 */
import type { FinalState } from '../domain/delivery-state.js';
import type { InboundRecord } from './inbound-store.js';

/**
 * The kinds of rows, each carried out by one consumer: receipts and MO owed to the SMPP users
 * of the customers' SMPP server, by its receipt courier (smpp-server/receipt-courier.ts).
 */
export type OutboxKind = 'smpp.receipt' | 'smpp.part-receipt' | 'smpp.mo';

/** A receipt owed to an SMPP user for a message it submitted with registered_delivery. */
export interface OwedSmppReceipt {
  messageId: number;
  smppUserId: number;
  /** The customer's source_addr of the submit (the receipt's destination_addr). */
  sourceAddr: string;
  /** When it was owed (a scheduled message's: its time): its retention counts from here. */
  createdAt: number;
}

/** A receipt owed for a part of a concatenated submit, answered with a message_id of its own (`partId`). */
export interface OwedSmppPartReceipt {
  partId: string;
  smppUserId: number;
  /** The assembled message; null: the assembly was given up, so the receipt says REJECTD. */
  messageId: number | null;
  sourceAddr: string;
  recipient: string;
  /** When the part was answered (or its message scheduled). */
  submittedAt: number;
}

/** A receipt due: the message (or part) as far as it went, once final. */
export interface DueReceipt {
  /** The outbox row (what is acknowledged). */
  id: number;
  /** The receipt's receipted_message_id: the message's id, or the part's own. */
  messageId: string;
  sourceAddr: string;
  recipient: string;
  /** `rejected`: the parts of a concatenated submit that never made a message. */
  state: FinalState | 'rejected';
  detail: string | null;
  submittedAt: number;
  doneAt: number | null;
}

/** An inbound message due to the account's SMPP receivers. */
export interface DueMo {
  id: number;
  message: InboundRecord;
}

/** Who claims: its name in the store, the time, and when its lease runs out. */
export interface OutboxLease {
  holder: string;
  now: number;
  until: number;
}

export interface OutboxStore {
  /** Owes receipts (in the caller's transaction); a message owed twice is owed once. */
  oweReceipts(receipts: readonly OwedSmppReceipt[]): Promise<void>;
  /** Owes receipts for parts (in the caller's transaction, when there is one); a part owed twice is owed once. */
  owePartReceipts(parts: readonly OwedSmppPartReceipt[], now: number): Promise<void>;
  /** Owes an inbound message to its account's SMPP receivers, if the account has an SMPP user (in the receiving transaction). */
  oweMo(message: { id: number; accountId: number; receivedAt: number }): Promise<void>;
  /** Claims up to `limit` receipts due to the user (final, not held), oldest first, for the lease. */
  claimReceipts(smppUserId: number, lease: OutboxLease, limit: number): Promise<DueReceipt[]>;
  /** Claims up to `limit` inbound messages due to the account, oldest first, for the lease. */
  claimMo(accountId: number, lease: OutboxLease, limit: number): Promise<DueMo[]>;
  /** Carried out: the rows go. */
  done(ids: readonly number[]): Promise<void>;
  /** Held by `holder` until `until` (a temporary refusal: tried again then). */
  holdUntil(ids: readonly number[], holder: string, until: number): Promise<void>;
  /** Given back by `holder` (its session closed): due again at once. */
  release(ids: readonly number[], holder: string): Promise<void>;
  /** Receipts due to the user (final, held or not): the backlog the console shows. */
  receiptsDue(smppUserId: number): Promise<number>;
  /** Removes rows of these kinds created before `before` (the retention limit); answers how many. */
  removeBefore(kinds: readonly OutboxKind[], before: number): Promise<number>;
}
