/** Accounts and their balance ledger. */
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
}

export type AccountInput = Pick<
  Account,
  'name' | 'perMinuteLimit' | 'otpBrand' | 'ipAllow' | 'globalSending' | 'sendWeight'
> & {
  balanceMain: number;
  balanceInternational: number;
};

export type AccountPatch = Partial<
  Pick<Account, 'name' | 'status' | 'perMinuteLimit' | 'otpBrand' | 'ipAllow' | 'globalSending' | 'sendWeight'>
>;

export type BalanceBucket = 'main' | 'international';

export interface ChargeEntry {
  accountId: number;
  bucket: BalanceBucket;
  amount: number;
  reason: string;
  reference: string;
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
}
