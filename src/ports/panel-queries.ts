import type { DeliveryState, PartState } from '../domain/delivery-state.js';
import type { SendKind } from './messages.js';

/**
 * The panel's read queries. The panel has no SQL of its own: every page reads
 * through this port, always scoped to one account, so another account's ids find nothing.
 */

/** Messages, SMS parts and outcomes of a day or a send. Pending = messages - delivered - failed. */
export interface Counts {
  messages: number;
  sms: number;
  delivered: number;
  failed: number;
}

export interface DayCounts extends Counts {
  /** Istanbul day number (days since 1970-01-01 local time). */
  day: number;
}

/** The outcome classes the log filters by. */
export type OutcomeFilter = 'delivered' | 'failed' | 'pending';

export interface MessageFilter {
  /** A normalised number (exact match). */
  number?: string;
  /** Creation time bounds, epoch ms: from inclusive, to exclusive. */
  from?: number;
  to?: number;
  outcome?: OutcomeFilter;
  sender?: string;
  sendId?: number;
}

/** Keyset position: the last row of the previous page (newest first). */
export interface LogCursor {
  createdAt: number;
  id: number;
}

export interface LogRow {
  id: number;
  sendId: number;
  recipient: string;
  sender: string;
  state: DeliveryState;
  smsCount: number;
  createdAt: number;
}

export interface PartRow {
  partNo: number;
  state: PartState;
  detail: string | null;
  doneAt: number | null;
}

export interface MessageDetail extends LogRow {
  text: string;
  operator: string;
  carrier: string | null;
  detail: string | null;
  submittedAt: number | null;
  doneAt: number | null;
  sendKind: SendKind;
  parts: PartRow[];
}

export interface CampaignRow {
  id: number;
  kind: SendKind;
  sender: string;
  text: string | null;
  scheduledAt: number | null;
  totalNumbers: number;
  invalidNumbers: number;
  blockedNumbers: number;
  smsCost: number;
  /** Recipients written out as messages so far (the rest are still to be expanded). */
  expandedCount: number;
  createdAt: number;
  counts: Counts;
  /** Null while it runs; paused or cancelled by its customer (campaign controls). */
  control: 'paused' | 'cancelled' | null;
}

export interface ExportRow {
  id: number;
  recipient: string;
  operator: string;
  state: DeliveryState;
  smsCount: number;
  createdAt: number;
  submittedAt: number | null;
  doneAt: number | null;
  detail: string | null;
}

export interface GroupRow {
  id: number;
  name: string;
  createdAt: number;
  contacts: number;
}

export interface ContactRow {
  number: string;
  /** From a CSV import's name column; null when none was given. */
  name: string | null;
  createdAt: number;
}

export interface BlockedRow {
  number: string;
  createdAt: number;
}

/** The hint of the key panel sends are recorded under: no issued key has parentheses in its hint. */
export const panelKeyHint = '(panel)';

export interface PanelQueries {
  /** Rollup rows of the account's days in [fromDay, toDay], days without messages left out. */
  dailyCounts(accountId: number, fromDay: number, toDay: number): Promise<DayCounts[]>;
  /** A page of the account's messages, newest first, after the cursor. */
  messageLog(accountId: number, filter: MessageFilter, after: LogCursor | null, limit: number): Promise<LogRow[]>;
  message(accountId: number, messageId: number): Promise<MessageDetail | null>;
  /** The account's bulk sends (group, mixed: the API's and the panel's), newest first, ids below `before`. */
  campaigns(accountId: number, before: number | null, limit: number): Promise<CampaignRow[]>;
  /** The account's latest sends of every kind (single, OTP, bulk, panel), newest first. */
  latestSends(accountId: number, limit: number): Promise<CampaignRow[]>;
  /** Any send of the account, with its counts; null when it is not the account's. */
  campaign(accountId: number, sendId: number): Promise<CampaignRow | null>;
  /** A page of a send's messages in id order, ids above `afterId` (the caller checked the send is the account's). */
  campaignRows(sendId: number, afterId: number, limit: number): Promise<ExportRow[]>;
  groups(accountId: number): Promise<GroupRow[]>;
  group(accountId: number, groupId: number): Promise<GroupRow | null>;
  /** A page of a group's contacts in number order, or null when the group is not the account's. */
  contacts(accountId: number, groupId: number, after: string | null, limit: number): Promise<ContactRow[] | null>;
  /** Every number of the account's group, or null when the group is not the account's. */
  groupNumbers(accountId: number, groupId: number): Promise<string[] | null>;
  removeContact(accountId: number, groupId: number, number: string): Promise<boolean>;
  /** Names the group's contacts (numbers as stored); false when the group is not the account's. */
  nameContacts(
    accountId: number,
    groupId: number,
    names: readonly { number: string; name: string }[],
  ): Promise<boolean>;
  /** A page of the blocking list in number order; `search`: digits the number contains. */
  blocked(accountId: number, search: string, after: string | null, limit: number): Promise<BlockedRow[]>;
  /** The account's key that the panel's sends are recorded under (hint `panelKeyHint`), or null before the first. */
  panelKeyId(accountId: number): Promise<number | null>;
  /** Which of these subscriber keys (last ten digits) the account has blocked. */
  blockedAmong(accountId: number, subscribers: readonly string[]): Promise<Set<string>>;
}
