/**
 * The provider console's use cases (issue 22): accounts (list, search, create, suspend,
 * reactivate, top up, debit, the ledger) and the sender IDs customers request (approve,
 * reject). Each change goes through the service `haberci admin` uses for it (AdminService,
 * SenderIdReview), on the store of one transaction that also writes the audit row: the
 * change and its row are committed together, or neither.
 */
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { AccountInput } from '../../ports/accounts.js';
import type { LedgerEntry, PendingSenderId } from '../../ports/console-queries.js';
import { AdminService, accountView } from '../admin.js';
import type { AccountView, BalancesView } from '../admin.js';
import { SenderIdReview } from '../sender-id-review.js';
import type { SenderIdView } from '../sender-id-admin.js';
import { userView } from '../panel-users.js';
import type { UserView } from '../panel-users.js';
import type { AuditLog } from './audit-log.js';
import type { Actor } from './audit-log.js';

export const accountPageSize = 50;
export const ledgerPageSize = 50;
export const pendingPageSize = 50;

export interface Paged<T> {
  items: T[];
  /** The cursor of the next page, or null when this one is the last. */
  next: number | null;
}

function paged<T>(rows: T[], limit: number, cursor: (row: T) => number): Paged<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last !== undefined ? cursor(last) : null };
}

export class ProviderConsole {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  private admin(store: Store): AdminService {
    return new AdminService(store, this.clock);
  }

  async accounts(text: string, after: number | undefined, limit = accountPageSize): Promise<Paged<AccountView>> {
    const rows = await this.store.console.accounts({
      text,
      ...(after === undefined ? {} : { after }),
      limit: limit + 1,
    });
    return paged(rows.map(accountView), limit, (a) => a.id);
  }

  async account(id: number): Promise<{ account: AccountView; users: UserView[] }> {
    const account = accountView(await this.admin(this.store).account(id));
    return { account, users: (await this.store.users.usersOf(id)).map(userView) };
  }

  async ledger(accountId: number, before: number | undefined, limit = ledgerPageSize): Promise<Paged<LedgerEntry>> {
    return paged(await this.store.console.ledger(accountId, before, limit + 1), limit, (e) => e.id);
  }

  createAccount(actor: Actor, input: AccountInput): Promise<AccountView> {
    return this.store.transaction(async (store) => {
      const made = await this.admin(store).createAccount(input);
      await this.audit.record(
        actor,
        {
          action: 'account.create',
          accountId: made.id,
          object: { type: 'account', id: made.id },
          detail: { name: made.name, balance_main: made.balance_main },
        },
        store,
      );
      return made;
    });
  }

  /** Suspended: every API call of the account's keys is refused (TS-1030), as `admin account update --status Suspended` does. */
  setStatus(actor: Actor, id: number, status: 'Active' | 'Suspended'): Promise<AccountView> {
    return this.store.transaction(async (store) => {
      const updated = await this.admin(store).updateAccount(id, { status }, {});
      await this.audit.record(
        actor,
        {
          action: status === 'Suspended' ? 'account.suspend' : 'account.reactivate',
          accountId: id,
          object: { type: 'account', id },
        },
        store,
      );
      return updated;
    });
  }

  topup(actor: Actor, id: number, amount: number, international: boolean): Promise<BalancesView> {
    return this.store.transaction(async (store) => {
      const done = await this.admin(store).topup(id, amount, international);
      await this.audit.record(
        actor,
        {
          action: 'account.topup',
          accountId: id,
          object: { type: 'account', id },
          detail: { amount, bucket: international ? 'international' : 'main' },
        },
        store,
      );
      return done;
    });
  }

  debit(actor: Actor, id: number, amount: number, international: boolean, reason: string): Promise<BalancesView> {
    return this.store.transaction(async (store) => {
      const done = await this.admin(store).debit(id, amount, international, reason);
      await this.audit.record(
        actor,
        {
          action: 'account.debit',
          accountId: id,
          object: { type: 'account', id },
          detail: { amount, bucket: international ? 'international' : 'main', reason: done.reason },
        },
        store,
      );
      return done;
    });
  }

  async pendingSenderIds(after: number | undefined, limit = pendingPageSize): Promise<Paged<PendingSenderId>> {
    return paged(await this.store.console.pendingSenderIds(after, limit + 1), limit, (s) => s.id);
  }

  approveSenderId(actor: Actor, id: number): Promise<SenderIdView> {
    return this.store.transaction(async (store) => {
      const done = await new SenderIdReview(store, this.clock, true).approve(id);
      await this.audit.record(
        actor,
        {
          action: 'sender-id.approve',
          accountId: done.account_id,
          object: { type: 'sender-id', id },
          detail: { title: done.title },
        },
        store,
      );
      return done;
    });
  }

  rejectSenderId(actor: Actor, id: number, reason: string): Promise<SenderIdView> {
    return this.store.transaction(async (store) => {
      const done = await new SenderIdReview(store, this.clock, true).reject(id, reason);
      await this.audit.record(
        actor,
        {
          action: 'sender-id.reject',
          accountId: done.account_id,
          object: { type: 'sender-id', id },
          detail: { title: done.title, reason: done.reason },
        },
        store,
      );
      return done;
    });
  }
}
