/** The provider's reads of accounts with their place in the hierarchy (resellers named). */
import type { Store } from '../ports/store.js';
import { ok } from '../domain/result.js';
import { notFound, type AdminResult } from './admin-result.js';
import { accountView } from './admin.js';
import type { AccountView } from './admin.js';
import { maxAccountPage, ownershipOf } from './account-hierarchy.js';
import type { Ownership } from './account-hierarchy.js';

/** The provider's reads of accounts with their place in the hierarchy (`admin account show/list`). */
export class AccountDirectory {
  constructor(private readonly store: Store) {}

  async show(id: number): Promise<AdminResult<AccountView & Ownership>> {
    const account = await this.store.accounts.getAccount(id);
    if (!account) return notFound(`no account with id ${id}`);
    return ok({ ...accountView(account), ...(await ownershipOf(this.store, account)) });
  }

  /** A page of accounts in id order (a reseller's customers with `parentId`); `next_after` pages on. */
  async list(listing: {
    parentId?: number;
    after?: number;
    limit?: number;
  }): Promise<AdminResult<{ accounts: (AccountView & Ownership)[]; next_after: number | null }>> {
    const limit = Math.min(listing.limit ?? 100, maxAccountPage);
    if (listing.parentId !== undefined) {
      const parent = await this.store.accounts.getAccount(listing.parentId);
      if (!parent) return notFound(`no account with id ${listing.parentId}`);
    }
    const page = await this.store.accounts.listAccounts({
      ...(listing.parentId !== undefined ? { parentId: listing.parentId } : {}),
      ...(listing.after !== undefined ? { after: listing.after } : {}),
      limit: limit + 1,
    });
    const shown = page.slice(0, limit);
    // The resellers named on this page: those on it, then one read for each other one.
    const names = new Map(shown.filter((a) => a.reseller === true).map((a) => [a.id, a.name]));
    const accounts: (AccountView & Ownership)[] = [];
    for (const account of shown) {
      const parentId = account.parentId ?? null;
      if (parentId !== null && !names.has(parentId)) {
        const parent = await this.store.accounts.getAccount(parentId);
        if (parent) names.set(parentId, parent.name);
      }
      accounts.push({ ...accountView(account), ...(await ownershipOf(this.store, account, names)) });
    }
    return ok({ accounts, next_after: page.length > limit ? (shown[shown.length - 1]?.id ?? null) : null });
  }
}
