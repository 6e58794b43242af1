/**
 * The audit log: one row per action that changed something, by a panel user (customer or
 * provider) or by `haberci admin` (actor `cli`). A row names who, when, what, on which
 * account and object, and from where; never a secret (services/audit-log.ts
 * decides what a row may carry).
 */
export interface AuditEntryInput {
  /** Epoch milliseconds. */
  at: number;
  /** The panel user's email, or `cli` for an admin command. */
  actor: string;
  /** The panel user's id; null for `cli`. */
  actorUserId: number | null;
  /** The request's address (panel), or the OS user (`cli`); null when unknown. */
  address: string | null;
  /** What was done, as `noun.verb` (e.g. `account.suspend`, `key.rotate`). */
  action: string;
  /** The account the action concerned, when one did. */
  accountId: number | null;
  /** The object acted on: its kind (`key`, `sender-id`, `group`...) and id. */
  objectType: string | null;
  objectId: string | null;
  /** A short JSON object of non-secret particulars (an amount, a reason), or null. */
  detail: string | null;
}

export interface AuditEntry extends AuditEntryInput {
  id: number;
}

export interface AuditSearch {
  accountId?: number;
  /** An actor's email (or `cli`): entries whose actor contains this text, case-insensitively. */
  actor?: string;
  /** An action, or the start of one (`account.` finds every account action). */
  action?: string;
  /** Epoch milliseconds, inclusive. */
  from?: number;
  /** Epoch milliseconds, exclusive. */
  to?: number;
  /** Keyset paging: entries with an id below this one (the last id of the previous page). */
  before?: number;
  limit: number;
}

export interface AuditStore {
  record(entry: AuditEntryInput): Promise<void>;
  /** Newest first. */
  search(query: AuditSearch): Promise<AuditEntry[]>;
}
