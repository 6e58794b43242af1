/** Customers over SMPP: their SMPP users, and the receipts owed to them. */
import type { FinalState } from '../domain/delivery-state.js';

/** An SMPP user: a system_id and password that bind as one API key, with its bind limits. */
export interface SmppUser {
  id: number;
  keyId: number;
  accountId: number;
  systemId: string;
  maxBinds: number;
  /** Unanswered deliver_sm per session. */
  windowSize: number;
  /** submit_sm a second per bind (0: no limit of its own). */
  maxSubmitsPerSecond: number;
  disabledAt: number | null;
  createdAt: number;
}

/** What a bind reads: the user, its password's hash and its key's hash (to authenticate as that key). */
export interface SmppCredentials {
  user: SmppUser;
  passwordHash: string;
  keyHash: string;
}

export type NewSmppUser = Omit<SmppUser, 'id' | 'disabledAt' | 'createdAt'> & { passwordHash: string };

/** A receipt owed: the message, as far as it went, once it reached a final state. */
export interface OwedReceipt {
  messageId: number;
  /** The customer's source_addr of the submit (the receipt's destination_addr). */
  sourceAddr: string;
  recipient: string;
  state: FinalState;
  /** The message's detail (the carrier's error text, if any). */
  detail: string | null;
  submittedAt: number;
  doneAt: number | null;
}

export interface SmppStore {
  createUser(user: NewSmppUser, now: number): Promise<SmppUser>;
  /** The user and hashes of an enabled or disabled user by its system_id; null when none. */
  credentials(systemId: string): Promise<SmppCredentials | null>;
  getUser(id: number): Promise<SmppUser | null>;
  users(accountId: number): Promise<SmppUser[]>;
  /** Disables the user (again: keeps the first time); null when there is none. */
  disableUser(id: number, now: number): Promise<SmppUser | null>;
  /** Owes a receipt for an accepted message (registered_delivery asked for one). */
  owe(receipt: { messageId: number; smppUserId: number; sourceAddr: string }, now: number): Promise<void>;
  /** Receipts owed to a user whose message reached a final state, oldest first. */
  owed(smppUserId: number, limit: number): Promise<OwedReceipt[]>;
  /** The customer acknowledged these receipts (deliver_sm_resp). */
  acknowledged(messageIds: readonly number[], now: number): Promise<void>;
  /** Removes receipts created before `before` (acknowledged or not): the retention limit. Answers how many. */
  removeBefore(before: number): Promise<number>;
}
