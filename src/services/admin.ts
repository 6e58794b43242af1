import type { Clock } from '../ports/clock.js';
import type { Account, AccountInput, AccountPatch } from '../ports/accounts.js';
import type { ApiKey, KeySettings } from '../ports/keys.js';
import type { SenderId } from '../ports/sender-ids.js';
import type { Store } from '../ports/store.js';
import { applyKeyAction, keepOldKeyMs, keyStateAt } from '../domain/api-key.js';
import type { KeyAction, KeyState } from '../domain/api-key.js';
import { allPermissions } from '../domain/permissions.js';
import { newApiKey } from './key-secrets.js';
import { DEFAULT_RETRY_SCHEDULE_MS, SELECTABLE_WEBHOOK_EVENTS } from '../domain/webhook.js';
import type { SelectableWebhookEvent } from '../domain/webhook.js';
import { BlocklistService } from './blocklist-service.js';
import { SenderIdAdmin } from './sender-id-admin.js';
import type { SenderIdView } from './sender-id-admin.js';
import { ok } from '../domain/result.js';
import { notFound, refused } from './admin-result.js';
import type { AdminResult } from './admin-result.js';
import { checkResellerChange, createUnder } from './account-hierarchy.js';

/** What admin commands print for a key: its settings, never the key or its hash. */
export interface KeyView {
  id: number;
  account_id: number;
  key_hint: string;
  state: KeyState;
  permissions: ApiKey['permissions'];
  ip_allow: string[];
  hourly_limit: number;
  daily_limit: number;
  monthly_limit: number;
  expires: string | null;
  valid_until: string | null;
  replaced_by: number | null;
  webhook_url: string | null;
  webhook_secret_set: boolean;
  webhook_attempts: number;
  /** The events the webhook takes: every selectable one unless the key was limited. */
  webhook_events: SelectableWebhookEvent[];
  /** Nominal delays between attempts in milliseconds (the last repeats): the key's own or the default. */
  webhook_retry_schedule_ms: number[];
  /** Events one webhook request carries at most (1: one each), and how long a bucket not full waits (ms). */
  webhook_batch: number;
  webhook_batch_wait_ms: number;
  sandbox: boolean;
  created_at: string;
}

export function keyView(key: ApiKey, now: number): KeyView {
  return {
    id: key.id,
    account_id: key.accountId,
    key_hint: key.keyHint,
    state: keyStateAt(key, now),
    permissions: key.permissions,
    ip_allow: key.ipAllow,
    hourly_limit: key.hourlyLimit,
    daily_limit: key.dailyLimit,
    monthly_limit: key.monthlyLimit,
    expires: key.expiresOn,
    valid_until: key.validUntil === null ? null : new Date(key.validUntil).toISOString(),
    replaced_by: key.replacedBy,
    webhook_url: key.webhookUrl,
    webhook_secret_set: key.webhookSecret !== null && key.webhookSecret !== '',
    webhook_attempts: key.webhookAttempts,
    webhook_events: key.webhookEvents ?? [...SELECTABLE_WEBHOOK_EVENTS],
    webhook_retry_schedule_ms: key.webhookRetryScheduleMs ?? [...DEFAULT_RETRY_SCHEDULE_MS],
    webhook_batch: key.webhookBatch,
    webhook_batch_wait_ms: key.webhookBatchWaitMs,
    sandbox: key.sandbox,
    created_at: new Date(key.createdAt).toISOString(),
  };
}

import { accountView } from './account-view.js';
import type { AccountView, BalancesView } from './account-view.js';
export { accountView };
export type { AccountView, BalancesView };

export const defaultKeySettings: KeySettings = {
  permissions: allPermissions(true),
  ipAllow: [],
  hourlyLimit: 0,
  dailyLimit: 0,
  monthlyLimit: 0,
  expiresOn: null,
  webhookUrl: null,
  webhookSecret: null,
  webhookAttempts: 5,
  webhookEvents: null,
  webhookRetryScheduleMs: null,
  webhookBatch: 1,
  webhookBatchWaitMs: 0,
  sandbox: false,
};

/**
 * Provider use cases behind `haberci admin` (and the demo set-up at first start). Each that
 * can fail returns an AdminResult: no account or key is ADM-NOT-FOUND, anything else refused
 * ADM-REFUSED, with the words the operator reads. A failure inside a transaction is found
 * before anything is written, so the transaction returns it with nothing to undo.
 */
export class AdminService {
  readonly senderIds: SenderIdAdmin;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.senderIds = new SenderIdAdmin(store, clock);
  }

  async createAccount(input: AccountInput): Promise<AdminResult<AccountView>> {
    const { parentId } = input;
    if (parentId === undefined)
      return ok(accountView(await this.store.accounts.createAccount(input, this.clock.now())));
    return this.store.transaction(async (store) => {
      const made = await createUnder(store, { ...input, parentId }, this.clock.now());
      return made.ok ? ok(accountView(made.value)) : made;
    });
  }

  async account(id: number): Promise<AdminResult<Account>> {
    const account = await this.store.accounts.getAccount(id);
    if (!account) return notFound(`no account with id ${id}`);
    return ok(account);
  }

  async updateAccount(
    id: number,
    patch: AccountPatch,
    balances: { main?: number; international?: number },
  ): Promise<AdminResult<AccountView>> {
    return this.store.transaction(async (store) => {
      if (patch.reseller !== undefined) await store.accounts.lockAccounts([id]);
      const before = await store.accounts.getAccount(id);
      if (!before) return notFound(`no account with id ${id}`);
      if (patch.reseller !== undefined) {
        const allowed = await checkResellerChange(store, before, patch.reseller);
        if (!allowed.ok) return allowed;
      }
      await store.accounts.updateAccount(id, patch);
      // Setting a balance is recorded in the ledger as the difference it makes.
      for (const bucket of ['main', 'international'] as const) {
        const target = balances[bucket];
        if (target === undefined) continue;
        const current = bucket === 'main' ? before.balanceMain : before.balanceInternational;
        if (target !== current)
          await store.accounts.adjustBalance(id, bucket, target - current, 'set by provider', null, this.clock.now());
      }
      const after = await store.accounts.getAccount(id);
      if (!after) throw new Error(`account ${id} vanished in its own update`);
      return ok(accountView(after));
    });
  }

  /** `account topup`: adds credit, recorded in the ledger as a top-up; never takes any. */
  async topup(id: number, amount: number, international: boolean): Promise<AdminResult<BalancesView>> {
    if (!Number.isSafeInteger(amount) || amount <= 0)
      return refused('a top-up amount must be a whole number above zero');
    return this.moveBalance(id, international, amount, 'top-up');
  }

  /** `account debit`: takes credit back, recorded in the ledger with the provider's reason. */
  async debit(
    id: number,
    amount: number,
    international: boolean,
    reason: string,
  ): Promise<AdminResult<BalancesView & { debited: number; reason: string }>> {
    if (!Number.isSafeInteger(amount) || amount <= 0)
      return refused('a debit amount must be a whole number above zero');
    if (reason.trim() === '') return refused('a debit needs a reason');
    const balances = await this.moveBalance(id, international, -amount, `debit: ${reason.trim()}`);
    return balances.ok ? ok({ ...balances.value, debited: amount, reason: reason.trim() }) : balances;
  }

  private async moveBalance(
    id: number,
    international: boolean,
    delta: number,
    reason: string,
  ): Promise<AdminResult<BalancesView>> {
    const bucket = international ? 'international' : 'main';
    const result = await this.store.accounts.adjustBalance(id, bucket, delta, reason, null, this.clock.now());
    if (result === null) return notFound(`no account with id ${id}`);
    if (result === 'insufficient') return refused(`the ${bucket} balance is less than ${-delta}; nothing was debited`);
    return ok({ id: result.id, balance_main: result.balanceMain, balance_international: result.balanceInternational });
  }

  /** `sender-id add`: checked as /sms/send checks `title`, once per account (see SenderIdAdmin). */
  addSenderId(accountId: number, title: string, status: SenderId['status']): Promise<AdminResult<SenderIdView>> {
    return this.senderIds.add(accountId, title, status);
  }

  /** `blocklist remove`: takes a number, in any accepted form, off the account's blocking list. */
  async unblockNumber(accountId: number, number: string): Promise<AdminResult<{ removed: boolean }>> {
    const account = await this.account(accountId);
    if (!account.ok) return account;
    const removed = await new BlocklistService(this.store.directory, this.clock).remove(accountId, number);
    if (!removed.ok) return refused(`not a Türkiye mobile number: ${number}`);
    return ok({ removed: removed.value });
  }

  async createKey(accountId: number, settings: KeySettings): Promise<AdminResult<{ api_key: string } & KeyView>> {
    const account = await this.account(accountId);
    if (!account.ok) return account;
    const secret = newApiKey(settings.sandbox);
    const key = await this.store.keys.createKey(accountId, secret.hash, secret.hint, settings, this.clock.now());
    return ok({ ...keyView(key, this.clock.now()), api_key: secret.key });
  }

  async key(id: number): Promise<AdminResult<ApiKey>> {
    const key = await this.store.keys.getKey(id);
    if (!key) return notFound(`no key with id ${id}`);
    return ok(key);
  }

  async updateKey(id: number, patch: Partial<KeySettings>): Promise<AdminResult<KeyView>> {
    const key = await this.key(id);
    if (!key.ok) return key;
    if (keyStateAt(key.value, this.clock.now()) === 'Revoked') return refused('a revoked key cannot be changed');
    const updated = await this.store.keys.updateKey(id, patch, this.clock.now());
    if (!updated) return notFound(`no key with id ${id}`);
    return ok(keyView(updated, this.clock.now()));
  }

  async changeKeyState(id: number, action: KeyAction): Promise<AdminResult<KeyView>> {
    const key = await this.key(id);
    if (!key.ok) return key;
    const next = applyKeyAction(keyStateAt(key.value, this.clock.now()), action);
    if (typeof next !== 'string') return refused(next.refused);
    const updated = await this.store.keys.updateKey(id, { state: next }, this.clock.now());
    if (!updated) return notFound(`no key with id ${id}`);
    return ok(keyView(updated, this.clock.now()));
  }

  /**
   * A new key takes over the old one's permissions and settings (its OTP settings and
   * standing OTP holds too). The old key stays valid
   * for 24 hours with keep-old, and is invalid at once otherwise.
   */
  async rotateKey(
    id: number,
    keepOld: boolean,
  ): Promise<AdminResult<{ id: number; api_key: string; old_key_id: number; old_key_valid_until: string | null }>> {
    return this.store.transaction(async (store) => {
      const now = this.clock.now();
      const old = await store.keys.getKey(id);
      if (!old) return notFound(`no key with id ${id}`);
      const state = keyStateAt(old, now);
      if (state !== 'Active') return refused(`only an Active key can be rotated (the key is ${state})`);
      const secret = newApiKey(old.sandbox);
      // Every setting moves to the new key; what is the key's own (its id, state, dates) does not.
      const { id: _id, accountId: _a, keyHint: _h, state: _s, validUntil: _v, replacedBy: _r, ...rest } = old;
      const { createdAt: _c, updatedAt: _u, ...settings } = rest;
      const fresh = await store.keys.createKey(old.accountId, secret.hash, secret.hint, settings, now);
      // Its OTP settings and the conversion watch's standing holds go with it.
      await store.otp.carryOver(id, fresh.id, now);
      const validUntil = keepOld ? now + keepOldKeyMs : null;
      await store.keys.updateKey(
        id,
        keepOld ? { validUntil, replacedBy: fresh.id } : { state: 'Revoked', replacedBy: fresh.id },
        now,
      );
      return ok({
        id: fresh.id,
        api_key: secret.key,
        old_key_id: id,
        old_key_valid_until: validUntil === null ? null : new Date(validUntil).toISOString(),
      });
    });
  }
}
