/** Accounts and their balance ledger. */
import type { SendControls } from '../domain/send-controls.js';

export interface Account {
  id: number;
  name: string;
  status: 'Active' | 'Suspended';
  balanceMain: number;
  balanceInternational: number;
  perMinuteLimit: number;
  otpBrand: string;
  ipAllow: string[];
  globalSending: boolean;
  /** The account's weight in its share of the carrier (1 when the store does not say: equal shares). */
  sendWeight?: number;
  createdAt: number;
  /**
   * Whether the provider made it a reseller, and the reseller that owns it (null: the
   * provider's own). Absent on the key lookup's account: a request never walks the hierarchy.
   */
  reseller?: boolean;
  parentId?: number | null;
  /**
   * The window, speed and validity a send of the account gets when it names none of them
   * (docs/api.md, "Send window, speed and validity"); null or absent: none.
   */
  sendDefaults?: SendControls | null;
  /**
   * Whether credit of a message that ends failed or expired is given back (docs/resellers.md):
   * on a customer of a reseller, whether the reseller passes on what the provider gives back.
   * Absent on the key lookup's account.
   */
  refundUndelivered?: boolean;
}

export type AccountInput = Pick<
  Account,
  'name' | 'perMinuteLimit' | 'otpBrand' | 'ipAllow' | 'globalSending' | 'sendWeight'
> & {
  balanceMain: number;
  balanceInternational: number;
  /** The reseller that owns the new account (the caller checked it is one). */
  parentId?: number;
};

export type AccountPatch = Partial<
  Pick<
    Account,
    | 'name'
    | 'status'
    | 'perMinuteLimit'
    | 'otpBrand'
    | 'ipAllow'
    | 'globalSending'
    | 'sendWeight'
    | 'reseller'
    | 'refundUndelivered'
  >
> & {
  /** Changes some of the account's send defaults (a field null takes that default away; absent leaves it). */
  sendDefaults?: Partial<SendControls>;
};

/** Credit moved from one account's balance to another's (a reseller and its customer). */
export interface CreditMove {
  from: number;
  to: number;
  bucket: BalanceBucket;
  /** Above zero. */
  amount: number;
  /** The ledger rows' reasons: the giver's, the taker's. */
  reasons: { from: string; to: string };
}

export type Balances = Record<BalanceBucket, number>;

/** Filters of an account listing, a page at a time in id order. */
export interface AccountListing {
  /** Only the customers of this reseller. */
  parentId?: number;
  /** Accounts with an id above this one. */
  after?: number;
  limit: number;
}

/** An account's ledger over a period: credit added and taken per balance and reason. */
export interface LedgerSum {
  bucket: BalanceBucket;
  reason: string;
  /** Sum of the positive rows. */
  added: number;
  /** Sum of the negative rows, as a positive number. */
  taken: number;
}

export type BalanceBucket = 'main' | 'international';

export interface ChargeEntry {
  accountId: number;
  bucket: BalanceBucket;
  amount: number;
  reason: string;
  reference: string;
}

/** Credit to give back, once per key (docs/decisions.md, "Campaign controls": the refund primitive). */
export interface Refund {
  /**
   * What is refunded, once for ever: `message:<id>` for the credit of one message, whatever
   * policy asks (a cancel; a failed or expired message), so two policies never both give it.
   */
  key: string;
  accountId: number;
  bucket: BalanceBucket;
  /** SMS credits, at least 1 (nothing is recorded for less). */
  amount: number;
  /** The ledger reason of this refund, when it is not the call's (a batch of several causes). */
  reason?: string;
}

export interface AccountStore {
  hasAccounts(): Promise<boolean>;
  createAccount(input: AccountInput, now: number): Promise<Account>;
  getAccount(id: number): Promise<Account | null>;
  updateAccount(id: number, patch: AccountPatch): Promise<Account | null>;
  /** Adds (or with a negative amount, takes) balance through the ledger, in one transaction. */
  adjustBalance(
    id: number,
    bucket: BalanceBucket,
    delta: number,
    reason: string,
    reference: string | null,
    now: number,
  ): Promise<Account | 'insufficient' | null>;
  /** Locks accounts' rows until the transaction ends (PostgreSQL; SQLite has one writer). */
  lockAccounts(ids: readonly number[]): Promise<void>;
  /** Current balances of accounts. */
  balancesOf(ids: readonly number[]): Promise<Map<number, Record<BalanceBucket, number>>>;
  /**
   * Takes many charges through the ledger in one go: one guarded update per account and
   * balance, one ledger row per charge. Throws (rolling the transaction back) if a balance
   * does not cover its total: callers decide against balances they read under lock.
   */
  applyCharges(charges: readonly ChargeEntry[], now: number): Promise<void>;
  /**
   * Moves credit in one transaction: the giver's balance taken unless it no longer covers the
   * amount, the taker's credited, one ledger row each (each naming the other account). Both
   * rows are locked in id order first (PostgreSQL), as a send batch locks them: no deadlock,
   * and a send deciding against a balance it read under lock is not undercut.
   */
  moveCredit(move: CreditMove, now: number): Promise<{ from: Balances; to: Balances } | 'insufficient' | null>;
  /** Accounts in id order, a page at a time. */
  listAccounts(listing: AccountListing): Promise<Account[]>;
  /** How many customer accounts a reseller owns. */
  customerCount(parentId: number): Promise<number>;
  /** The account's ledger rows created in [from, to), summed per balance and reason. */
  ledgerSums(accountId: number, from: number, to: number): Promise<LedgerSum[]>;
  /** Each balance as the ledger had it just before `instant` (the last row's balance after; 0 with none). */
  ledgerBalancesBefore(accountId: number, instant: number): Promise<Balances>;
  /**
   * Gives credit back, each key at most once ever: a key refunded before (by this call, an
   * earlier one, or a concurrent one on another connection) gives nothing. One ledger row per
   * account, bucket and reason that got credit (a refund's own reason, else `reason`), with
   * `reference` (null: the key, when the row is one refund's). Runs in the caller's
   * transaction (its own otherwise), so the refund commits with the state change that earns
   * it. Answers the credits given back.
   */
  refund(refunds: readonly Refund[], reason: string, reference: string | null, now: number): Promise<number>;
}
