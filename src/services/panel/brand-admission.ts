import type { Store } from '../../ports/store.js';
import type { PanelUser } from '../../ports/user-store.js';

/**
 * Whether the panel of reseller `brandOf`'s brand admits a user: the reseller's own users
 * and its customers' only (null: the provider's own panel, which admits everyone). A user
 * not admitted signs in as with a wrong password, and a session of theirs is none there:
 * customers of one brand cannot use another brand's host.
 */
export async function admits(store: Store, user: PanelUser, brandOf: number | null): Promise<boolean> {
  if (brandOf === null) return true;
  if (user.accountId === null) return false;
  if (user.accountId === brandOf) return true;
  return (await store.accounts.getAccount(user.accountId))?.parentId === brandOf;
}
