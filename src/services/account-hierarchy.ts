/**
 * The hierarchy of accounts: the provider, its resellers, their customers. One level only
 * (docs/decisions.md, "Resellers: one level, prepaid credit moved down"): a reseller has no
 * parent, a customer is no reseller, so the owner of any account is found in one read and
 * never by a walk. The rules are checked in the transaction that changes the hierarchy,
 * under the parent's (or the account's) row lock, so two admin commands racing (a customer
 * created under a reseller while it stops being one) cannot both pass.
 */
import type { Account, AccountInput } from '../ports/accounts.js';
import type { Store } from '../ports/store.js';
import { ok } from '../domain/result.js';
import { notFound, refused } from './admin-result.js';
import type { AdminResult } from './admin-result.js';

/** The largest page of an account listing. */
export const maxAccountPage = 500;

/**
 * Creates a customer account under a reseller, in the caller's transaction. No parent is
 * ADM-NOT-FOUND, a parent that is no reseller ADM-REFUSED: both found before anything is
 * written.
 */
export async function createUnder(
  store: Store,
  input: AccountInput & { parentId: number },
  now: number,
): Promise<AdminResult<Account>> {
  await store.accounts.lockAccounts([input.parentId]);
  const parent = await store.accounts.getAccount(input.parentId);
  if (!parent) return notFound(`no account with id ${input.parentId}`);
  if (parent.reseller !== true)
    return refused(`account ${parent.id} is not a reseller (admin account update --id ${parent.id} --reseller true)`);
  return ok(await store.accounts.createAccount(input, now));
}

/**
 * Checks that an account may become a reseller (or stop being one), in the caller's
 * transaction, with the account's row locked: a customer cannot become a reseller (one
 * level), and a reseller that still owns customers stays one (ADM-REFUSED, both).
 */
export async function checkResellerChange(
  store: Store,
  account: Account,
  reseller: boolean,
): Promise<AdminResult<true>> {
  if (reseller && account.parentId !== null && account.parentId !== undefined)
    return refused(
      `account ${account.id} is a customer of reseller ${account.parentId}: a reseller's customer cannot be a reseller (one level)`,
    );
  if (!reseller && account.reseller === true) {
    const customers = await store.accounts.customerCount(account.id);
    if (customers > 0)
      return refused(`account ${account.id} still owns ${customers} customer account(s); it stays a reseller`);
  }
  return ok(true);
}

/** What the provider sees of an account beside its own view: its reseller by name, its customers. */
export interface Ownership {
  /** The reseller's name, for a customer account; null for the provider's own. */
  reseller_name: string | null;
  /** How many customers a reseller owns (absent for other accounts). */
  customers?: number;
}

export async function ownershipOf(store: Store, account: Account, names?: Map<number, string>): Promise<Ownership> {
  const parentId = account.parentId ?? null;
  let resellerName: string | null = null;
  if (parentId !== null)
    resellerName = names?.get(parentId) ?? (await store.accounts.getAccount(parentId))?.name ?? null;
  if (account.reseller !== true) return { reseller_name: resellerName };
  return { reseller_name: resellerName, customers: await store.accounts.customerCount(account.id) };
}
