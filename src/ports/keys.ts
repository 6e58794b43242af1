/** API keys and their request counts. */
import type { Account } from './accounts.js';
import type { PermissionSet } from '../domain/permissions.js';
import type { StoredKeyState } from '../domain/api-key.js';
import type { SelectableWebhookEvent } from '../domain/webhook.js';
import type { LimitHit, UsageRequest, UsageWindows } from '../domain/request-limits.js';

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
  /** Events one webhook request carries at most, 1 to 100 (1: one event a request, as a single body). */
  webhookBatch: number;
  /** How long a bucket that is not full waits for more events before it goes, in milliseconds. */
  webhookBatchWaitMs: number;
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

/** What an update of a key may change. */
export type KeyPatch = Partial<KeySettings> & {
  state?: StoredKeyState;
  validUntil?: number | null;
  replacedBy?: number | null;
};

/** A key found by its hash, with the account fields the request path needs. */
export interface KeyWithAccount {
  key: ApiKey;
  account: Account;
}

export interface KeyStore {
  createKey(accountId: number, hash: string, hint: string, settings: KeySettings, now: number): Promise<ApiKey>;
  getKey(id: number): Promise<ApiKey | null>;
  findKeyByHash(hash: string): Promise<KeyWithAccount | null>;
  updateKey(id: number, patch: KeyPatch, now: number): Promise<ApiKey | null>;
  /**
   * Counts requests against their keys' limits, in one transaction, decided in order: a
   * request is counted unless one of its key's limits is reached, and the answer names that
   * limit otherwise.
   */
  consumeRequests(items: readonly UsageRequest[]): Promise<(LimitHit | null)[]>;
  /**
   * Takes back `count` (default 1) counted requests of the key in the windows they were
   * counted in (a request refused after it was counted: rejected requests are not counted;
   * places of a lease left unused, services/usage-leases.ts). A window that has moved on
   * meanwhile is left as it is.
   */
  refundRequest(keyId: number, windows: UsageWindows, count?: number): Promise<void>;
}
