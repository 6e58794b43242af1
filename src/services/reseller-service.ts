/**
 * A reseller's use cases over the API (/subaccounts/...): its customers created, listed,
 * funded and taken back from, suspended and reactivated, and their usage read. Every
 * answer is about the calling reseller's own customers: another account's id, whoever owns
 * it, is TS-1170, the same answer as an id that does not exist, so nothing is learnt of
 * other resellers' customers. Every change is written with its audit row in one
 * transaction (actor `key:<id>`).
 */
import type { Account, AccountPatch, Balances } from '../ports/accounts.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { fail, ok } from '../domain/result.js';
import { moveReasons } from '../domain/refunds.js';
import type { Failure, Result } from '../domain/result.js';
import { AuditLog } from './audit-log.js';
import type { AuditFact, KeyActor, UserActor } from './audit-log.js';
import { createUnder, maxAccountPage } from './account-hierarchy.js';
import { UserService } from './panel/users.js';
import { usageOf } from './reseller-usage.js';
import type { Usage } from './reseller-usage.js';

/**
 * A panel user refused inside `create`'s transaction, after its account was written: thrown
 * there only, so the transaction rolls the account back, and returned as TS-1033 right
 * outside it.
 */
class UserRefused extends Error {}

/** Customers one reseller may own: a bound on its listing and on what one key can create. */
export const maxCustomers = 10_000;
/** The largest amount one move takes: well inside a safe integer and a bigint column. */
export const maxMoveAmount = 1_000_000_000_000;

/**
 * The reseller acting: its account (from the key lookup) and the key, for the audit row; or,
 * in the panel, its account and the signed-in user of it.
 */
export type ResellerCaller =
  { accountId: number; keyId: number; address: string | null } | { accountId: number; user: UserActor };

/** A customer as the reseller sees it. */
export interface CustomerView {
  account_id: number;
  name: string;
  status: Account['status'];
  balance_main: number;
  balance_international: number;
}

export interface FundAnswer {
  reseller: { account_id: number; balance_main: number; balance_international: number };
  customer: { account_id: number; balance_main: number; balance_international: number };
}

export function customerView(a: Account): CustomerView {
  return {
    account_id: a.id,
    name: a.name,
    status: a.status,
    balance_main: a.balanceMain,
    balance_international: a.balanceInternational,
  };
}

const balancesOf = (id: number, b: Balances) => ({
  account_id: id,
  balance_main: b.main,
  balance_international: b.international,
});

const notYours: Failure = fail('TS-1170', { message: 'No customer of this reseller has this account_id' });

export class ResellerService {
  private readonly audit: AuditLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  /** The caller's account, when it is a reseller (read here: the key lookup does not carry it). */
  private async reseller(store: Store, caller: ResellerCaller): Promise<Result<Account>> {
    const account = await store.accounts.getAccount(caller.accountId);
    if (account?.reseller !== true) return fail('TS-1065', { message: 'The account is not a reseller' });
    return ok(account);
  }

  /** The reseller's customer, or TS-1170 for any other id. */
  private async customer(store: Store, caller: ResellerCaller, customerId: number): Promise<Result<Account>> {
    const reseller = await this.reseller(store, caller);
    if (!reseller.ok) return reseller;
    const account = await store.accounts.getAccount(customerId);
    return account !== null && account.parentId === caller.accountId ? ok(account) : notYours;
  }

  private actor(caller: ResellerCaller): KeyActor | UserActor {
    return 'user' in caller ? caller.user : { kind: 'key', keyId: caller.keyId, address: caller.address };
  }

  /** The reseller's customer `customerId`, or null for every other id (and when the caller is no reseller). */
  async owned(caller: ResellerCaller, customerId: number, store: Store = this.store): Promise<Account | null> {
    const found = await this.customer(store, caller, customerId);
    return found.ok ? found.value : null;
  }

  private record(store: Store, caller: ResellerCaller, fact: AuditFact): Promise<void> {
    return this.audit.record(this.actor(caller), fact, store);
  }

  /**
   * A customer account under the reseller (its per-minute limit, international sending and
   * OTP brand taken from the reseller's own), and with `email` a panel user of it whose
   * set-password token is in the answer: all in one transaction, or nothing.
   */
  async create(
    caller: ResellerCaller,
    name: string,
    email: string | undefined,
  ): Promise<Result<CustomerView & { user_id?: number; set_password_token?: string }>> {
    try {
      return await this.store.transaction(async (store) => {
        // Under the reseller's row lock: the count and the insert are not raced by another create.
        await store.accounts.lockAccounts([caller.accountId]);
        const reseller = await this.reseller(store, caller);
        if (!reseller.ok) return reseller;
        if ((await store.accounts.customerCount(caller.accountId)) >= maxCustomers)
          return fail('TS-1060', { message: `A reseller owns at most ${maxCustomers} customer accounts` });
        const { perMinuteLimit, globalSending, otpBrand } = reseller.value;
        const input = { name, balanceMain: 0, balanceInternational: 0, perMinuteLimit, globalSending, otpBrand };
        const made = await createUnder(store, { ...input, ipAllow: [], parentId: caller.accountId }, this.clock.now());
        // Refused before anything is written (the reseller was checked above, under its lock).
        if (!made.ok) return fail('TS-1033', { message: made.message });
        const account = made.value;
        const invited =
          email === undefined
            ? null
            : await new UserService(store, this.clock).create({ accountId: account.id, email });
        // Refused after the account was written: thrown, so the transaction undoes it.
        if (invited !== null && !invited.ok) throw new UserRefused(invited.message);
        const user = invited?.value ?? null;
        await this.record(store, caller, {
          action: 'subaccount.create',
          accountId: account.id,
          object: { type: 'account', id: account.id },
          detail: { name, reseller_id: caller.accountId, email: user?.email },
        });
        return ok({
          ...customerView(account),
          ...(user
            ? { user_id: user.id, ...(user.set_password_token ? { set_password_token: user.set_password_token } : {}) }
            : {}),
        });
      });
    } catch (error) {
      // A panel user refused (not an email, or taken): nothing was created.
      if (error instanceof UserRefused) return fail('TS-1033', { message: error.message });
      throw error;
    }
  }

  /** The reseller's customers in id order, a page at a time (`next_after` pages on). */
  async list(
    caller: ResellerCaller,
    after: number | undefined,
  ): Promise<Result<{ accounts: CustomerView[]; next_after: number | null }>> {
    const reseller = await this.reseller(this.store, caller);
    if (!reseller.ok) return reseller;
    const page = await this.store.accounts.listAccounts({
      parentId: caller.accountId,
      ...(after !== undefined ? { after } : {}),
      limit: maxAccountPage + 1,
    });
    const shown = page.slice(0, maxAccountPage);
    const nextAfter = page.length > maxAccountPage ? (shown[shown.length - 1]?.id ?? null) : null;
    return ok({ accounts: shown.map(customerView), next_after: nextAfter });
  }

  /**
   * Moves credit: a positive amount from the reseller to the customer, a negative one back
   * from the customer's unused credit (its balance: what was accepted is charged already).
   * Two ledger rows and the audit row in one transaction; TS-1027 when the giver's balance
   * does not cover it, and then nothing moved.
   */
  async fund(
    caller: ResellerCaller,
    customerId: number,
    amount: number,
    international: boolean,
  ): Promise<Result<FundAnswer>> {
    return this.store.transaction(async (store) => {
      const customer = await this.customer(store, caller, customerId);
      if (!customer.ok) return customer;
      const bucket = international ? 'international' : 'main';
      const giving = amount > 0;
      const moved = await store.accounts.moveCredit(
        giving
          ? {
              from: caller.accountId,
              to: customerId,
              bucket,
              amount,
              reasons: moveReasons.fund,
            }
          : {
              from: customerId,
              to: caller.accountId,
              bucket,
              amount: -amount,
              reasons: moveReasons.takeBack,
            },
        this.clock.now(),
      );
      if (moved === null) return notYours;
      if (moved === 'insufficient')
        return fail('TS-1027', {
          message: giving
            ? `The reseller's ${bucket} balance does not cover ${amount}; nothing moved`
            : `The customer's unused ${bucket} credit is less than ${-amount}; nothing moved`,
        });
      await this.record(store, caller, {
        action: giving ? 'subaccount.fund' : 'subaccount.take-back',
        accountId: customerId,
        object: { type: 'account', id: customerId },
        detail: { amount: Math.abs(amount), bucket, reseller_id: caller.accountId },
      });
      const [resellerBalances, customerBalances] = giving ? [moved.from, moved.to] : [moved.to, moved.from];
      return ok({
        reseller: balancesOf(caller.accountId, resellerBalances),
        customer: balancesOf(customerId, customerBalances),
      });
    });
  }

  /** Suspends or reactivates a customer: its keys are refused (TS-1030) from the next request on. */
  async setStatus(
    caller: ResellerCaller,
    customerId: number,
    status: Account['status'],
  ): Promise<Result<CustomerView>> {
    const changed = await this.changeCustomer(caller, customerId, { status }, (before) => ({
      action: status === 'Suspended' ? 'subaccount.suspend' : 'subaccount.reactivate',
      detail: { status, before: before.status, reseller_id: caller.accountId },
    }));
    return changed.ok ? ok(customerView(changed.value)) : changed;
  }

  /**
   * Whether the reseller passes on to this customer what the provider gives back for the
   * customer's undelivered messages (docs/resellers.md, "Refunds"): in effect while the
   * provider's policy for the reseller is on.
   */
  async setRefundPolicy(
    caller: ResellerCaller,
    customerId: number,
    refundUndelivered: boolean,
  ): Promise<Result<CustomerView & { refund_undelivered: boolean }>> {
    const changed = await this.changeCustomer(caller, customerId, { refundUndelivered }, () => ({
      action: 'subaccount.refund-policy',
      detail: { refund_undelivered: refundUndelivered, reseller_id: caller.accountId },
    }));
    if (!changed.ok) return changed;
    return ok({ ...customerView(changed.value), refund_undelivered: changed.value.refundUndelivered === true });
  }

  /**
   * Changes the reseller's customer and records it, in one transaction: `fact` gives the
   * audit row's action and particulars, from the customer as it was.
   */
  private changeCustomer(
    caller: ResellerCaller,
    customerId: number,
    patch: AccountPatch,
    fact: (before: Account) => Pick<AuditFact, 'action' | 'detail'>,
  ): Promise<Result<Account>> {
    return this.store.transaction(async (store) => {
      const customer = await this.customer(store, caller, customerId);
      if (!customer.ok) return customer;
      const updated = await store.accounts.updateAccount(customerId, patch);
      if (!updated) return notYours;
      const { action, detail } = fact(customer.value);
      await this.record(store, caller, {
        action,
        accountId: customerId,
        object: { type: 'account', id: customerId },
        detail,
      });
      return ok(updated);
    });
  }

  /** A customer's usage over whole Istanbul days (`from` to `to`, inclusive). */
  async usage(caller: ResellerCaller, customerId: number, from: string, to: string): Promise<Result<Usage>> {
    const customer = await this.customer(this.store, caller, customerId);
    if (!customer.ok) return customer;
    return usageOf(this.store, customerId, from, to);
  }
}
