/** Consents for commercial messages (İYS), per account: the newest per recipient and type wins. */
import type { Consent, ConsentMarks, RecipientType } from '../domain/iys.js';

export interface ConsentStore {
  /**
   * Records consents. For each account, recipient and type only the newest (by consent date;
   * on a tie, the one recorded last) is kept; an older one changes nothing. Returns, per
   * input, whether it is now the record in force.
   */
  record(accountId: number, consents: readonly Consent[], now: number, origin?: ConsentOrigin): Promise<boolean[]>;
  /** The consent in force for a recipient and type, or null when there is none. */
  find(accountId: number, recipient: string, type: RecipientType): Promise<Consent | null>;
  /** The consent in force of each of these recipients, in their order (ConsentMarks: none, ONAY or RET). */
  statusesOf(accountId: number, type: RecipientType, recipients: readonly string[]): Promise<ConsentMarks>;
  /** The account's records of one recipient (each recipient type it has one of), BIREYSEL first. */
  entriesOf(accountId: number, recipient: string): Promise<ConsentEntry[]>;
  /**
   * Up to `limit` of the account's records in the order of their key (type, then recipient),
   * after `after` (an export's pages: an index range scan each).
   */
  entriesAfter(accountId: number, after: ConsentKey | null, limit: number): Promise<ConsentEntry[]>;
  /**
   * The account's RETs in force that came by reply (source HS_MESAJ), newest consent date
   * first, one per recipient (a RET by reply is recorded for both types), at most `limit`.
   */
  retsByReply(accountId: number, limit: number): Promise<ConsentEntry[]>;
  /** The account's İYS settings, or null when it has none. */
  settingsOf(accountId: number): Promise<IysSettings | null>;
  /** Creates or replaces the account's İYS settings; fields left undefined keep their value. */
  saveSettings(accountId: number, settings: IysSettingsPatch, now: number): Promise<IysSettings>;

  /** The settings of every account that syncs with İYS (an address is set), by account id. */
  syncingAccounts(): Promise<IysSettings[]>;
  /** Up to `limit` of the account's records still to push whose next attempt is due by `now`, oldest due first. */
  dueForSync(accountId: number, now: number, limit: number): Promise<ConsentToSync[]>;
  /**
   * Writes what came of pushing records. Each outcome applies only while the record is still
   * the one pushed (same status, consent date and time recorded): one recorded meanwhile
   * stays pending, to be pushed in its turn.
   */
  settleSync(accountId: number, outcomes: readonly SyncOutcome[], now: number): Promise<void>;
  /** How many of the account's records are in each sync state, and the latest error. */
  syncSummary(accountId: number): Promise<SyncSummary>;
  /** Where the pull of changes made on İYS goes on from (İYS's `after`), null at first. */
  pullCursor(accountId: number): Promise<string | null>;
  savePullCursor(accountId: number, cursor: string): Promise<void>;
  /**
   * Runs `work` unless another process of the store runs the İYS sync now (PostgreSQL: an
   * advisory lock; SQLite has one writer process): false when it did not run.
   */
  exclusively(work: () => Promise<void>): Promise<boolean>;
}

/**
 * Where a record came from: `local` (this service: /iys/consent/add, RET by reply), pushed
 * to İYS by the sync (state pending); `iys` (pulled from İYS), which is not pushed back.
 */
export type ConsentOrigin = 'local' | 'iys';

/** A record's sync state: pending (to push; retried), synced, failed (İYS refused it), from_iys (pulled). */
export const syncStates = ['pending', 'synced', 'failed', 'from_iys'] as const;
export type SyncState = (typeof syncStates)[number];

/** A record's key within its account. */
export interface ConsentKey {
  recipientType: RecipientType;
  recipient: string;
}

/** A record as the panel shows it: the consent, when it was recorded here and its sync state. */
export interface ConsentEntry extends Consent {
  recordedAt: number;
  syncState: SyncState;
  /** İYS's last refusal or the last failed attempt's error; null when none. */
  syncError: string | null;
}

/** A record to push, as it was when read (the version its outcome is written for). */
export interface ConsentToSync extends Consent {
  recordedAt: number;
  attempts: number;
}

export type SyncOutcome =
  | { consent: ConsentToSync; result: 'synced' }
  | { consent: ConsentToSync; result: 'failed'; error: string }
  | { consent: ConsentToSync; result: 'retry'; error: string; dueAt: number };

export interface SyncSummary {
  pending: number;
  synced: number;
  failed: number;
  fromIys: number;
  /** The error of the record most recently attempted without success, or null. */
  lastError: string | null;
}

/** An account's İYS settings. The password is kept only as `passwordSecret` (encrypted, or a file reference). */
export interface IysSettings {
  accountId: number;
  iysCode: string;
  brandCode: string;
  url: string | null;
  username: string | null;
  passwordSecret: string | null;
  /** Comma-separated words that make an inbound reply a RET; null: the default ones. */
  retWords: string | null;
  /** A commercial send whose text misses a rule (sender, opt-out) is refused on the API; false: only a warning. */
  refuseTextRules: boolean;
  updatedAt: number;
}

export type IysSettingsPatch = Partial<Omit<IysSettings, 'accountId' | 'updatedAt'>> &
  Pick<IysSettings, 'iysCode' | 'brandCode'>;
