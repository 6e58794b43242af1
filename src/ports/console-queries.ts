/**
 * The provider console's reads: every account, searchable and paged by key;
 * an account's balance ledger; the sender IDs waiting for the provider's decision.
 */
import type { Account, BalanceBucket } from './accounts.js';
import type { SenderId } from './sender-ids.js';

export interface AccountSearch {
  /** A name (contains, case-insensitive), an id (`12` or `#12`), or a panel user's email (contains). */
  text?: string;
  /** Keyset paging: accounts with an id above this one. */
  after?: number;
  limit: number;
}

export interface LedgerEntry {
  id: number;
  bucket: BalanceBucket;
  delta: number;
  balanceAfter: number;
  reason: string;
  reference: string | null;
  createdAt: number;
}

export interface PendingSenderId extends SenderId {
  accountName: string;
}

export interface ConsoleQueries {
  /** Accounts in id order. */
  accounts(search: AccountSearch): Promise<Account[]>;
  /** An account's ledger, newest first; `before`: entries with an id below this one. */
  ledger(accountId: number, before: number | undefined, limit: number): Promise<LedgerEntry[]>;
  /**
   * Pending sender IDs of every account, oldest first; `after`: ids above this one. With
   * `reseller`: instead, the requests of that reseller's customers that wait for it
   * (`awaiting-reseller`).
   */
  pendingSenderIds(after: number | undefined, limit: number, reseller?: number): Promise<PendingSenderId[]>;
}
