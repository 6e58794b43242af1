import type { MessageStore } from './message-store.js';
import type { DirectoryStore } from './directory-store.js';
import type { EventStore } from './event-store.js';
import type { InboundStore } from './inbound-store.js';
import type { PanelQueries } from './panel-queries.js';
import type { UserStore } from './user-store.js';
import type { PermissionSet } from '../domain/permissions.js';
import type { StoredKeyState } from '../domain/api-key.js';
import type { SelectableWebhookEvent } from '../domain/webhook.js';

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
  createdAt: number;
}

export type AccountInput = Pick<Account, 'name' | 'perMinuteLimit' | 'otpBrand' | 'ipAllow' | 'globalSending'> & {
  balanceMain: number;
  balanceInternational: number;
};

export type AccountPatch = Partial<Pick<Account, 'name' | 'status' | 'perMinuteLimit' | 'otpBrand' | 'ipAllow' | 'globalSending'>>;

export type BalanceBucket = 'main' | 'international';

export interface ChargeEntry {
  accountId: number;
  bucket: BalanceBucket;
  amount: number;
  reason: string;
  reference: string;
}

export interface SenderId {
  id: number;
  accountId: number;
  title: string;
  status: 'approved' | 'pending' | 'rejected';
  createdAt: number;
}

export interface KeySettings {
  permissions: PermissionSet;
  ipAllow: string[];
  hourlyLimit: number;
  dailyLimit: number;
  monthlyLimit: number;
  expiresOn: string | null;
  webhookUrl: string | null;
  webhookSecret: string | null;
  webhookAttempts: number;
  /** The events the webhook takes; null: every event. */
  webhookEvents: SelectableWebhookEvent[] | null;
  /** Nominal delays between attempts (the last repeats); null: the default schedule. */
  webhookRetryScheduleMs: number[] | null;
  sandbox: boolean;
}

export interface ApiKey extends KeySettings {
  id: number;
  accountId: number;
  keyHint: string;
  state: StoredKeyState;
  validUntil: number | null;
  replacedBy: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A key found by its hash, with the account fields the request path needs. */
export interface KeyWithAccount {
  key: ApiKey;
  account: Account;
}

export interface UsageWindows {
  hour: string;
  day: string;
  month: string;
}

export type LimitHit = 'hourly' | 'daily' | 'monthly';

export interface AccountStore {
  hasAccounts(): Promise<boolean>;
  createAccount(input: AccountInput, now: number): Promise<Account>;
  getAccount(id: number): Promise<Account | null>;
  updateAccount(id: number, patch: AccountPatch): Promise<Account | null>;
  /** Adds (or with a negative amount, takes) balance through the ledger, in one transaction. */
  adjustBalance(id: number, bucket: BalanceBucket, delta: number, reason: string, reference: string | null, now: number): Promise<Account | 'insufficient' | null>;
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

export interface SenderIdStore {
  /** Adds a sender ID; null when the account already has one with this title (titles are unique per account). */
  addSenderId(accountId: number, title: string, status: SenderId['status'], now: number): Promise<SenderId | null>;
  getSenderId(id: number): Promise<SenderId | null>;
  /** Every sender ID of an account, whatever its status, oldest first. */
  senderIds(accountId: number): Promise<SenderId[]>;
  /** Deletes a sender ID; false when there was none with this id. */
  removeSenderId(id: number): Promise<boolean>;
  /** Approved sender IDs of an account, newest first. */
  approvedSenderIds(accountId: number): Promise<SenderId[]>;
  hasApprovedSender(accountId: number, title: string): Promise<boolean>;
}

export interface KeyStore {
  createKey(accountId: number, hash: string, hint: string, settings: KeySettings, now: number): Promise<ApiKey>;
  getKey(id: number): Promise<ApiKey | null>;
  findKeyByHash(hash: string): Promise<KeyWithAccount | null>;
  updateKey(id: number, patch: Partial<KeySettings> & { state?: StoredKeyState; validUntil?: number | null; replacedBy?: number | null }, now: number): Promise<ApiKey | null>;
  /**
   * Counts one request against the key's limits unless one of them is reached, atomically
   * (one statement), and says which limit was reached otherwise.
   */
  consumeRequest(keyId: number, limits: { hourly: number; daily: number; monthly: number }, windows: UsageWindows): Promise<LimitHit | null>;
  /** consumeRequest for many requests in one transaction, decided in order. */
  consumeRequests(items: readonly { keyId: number; limits: { hourly: number; daily: number; monthly: number }; windows: UsageWindows }[]): Promise<(LimitHit | null)[]>;
  /**
   * Takes back one counted request of the key in the windows it was counted in (a request
   * refused after it was counted: rejected requests are not counted). A window that has
   * moved on meanwhile is left as it is.
   */
  refundRequest(keyId: number, windows: UsageWindows): Promise<void>;
}

export interface Store extends AccountStore, SenderIdStore, KeyStore {
  readonly messages: MessageStore;
  readonly directory: DirectoryStore;
  readonly events: EventStore;
  readonly inbound: InboundStore;
  /** The panel's read queries (issue 21). */
  readonly panel: PanelQueries;
  /** The customer panel's users, sessions and notes (src/ports/user-store.ts). */
  readonly users: UserStore;
  /** Runs work in one transaction against a store bound to it. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: runs work so that, if it throws, its writes alone are undone (a
   * savepoint) and the transaction can go on; the error is thrown again. Its writes are
   * committed with the transaction.
   */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
