/**
 * The provider console's use cases: accounts (list, search, create, suspend, reactivate, top
 * up, debit, the ledger), the sender IDs customers request (approve, reject) and the OTP
 * conversion watch's holds (list, release). Each change
 * goes through the service `haberci admin` uses for it (AdminService, SenderIdReview), on the
 * store of one transaction that also writes the audit row (AuditLog.change). Built for one
 * provider user (the actor of every row) by ProviderPanel.
 */
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { AccountInput } from '../../../ports/accounts.js';
import type { LedgerEntry, PendingSenderId } from '../../../ports/console-queries.js';
import { AdminService, accountView } from '../../admin.js';
import type { AccountView, BalancesView } from '../../admin.js';
import { SenderIdReview } from '../../sender-id-review.js';
import type { SenderIdView } from '../../sender-id-admin.js';
import type { Actor, AuditFact, AuditLog } from '../../audit-log.js';
import { AdminError } from '../../admin-error.js';
import { notFound } from '../../admin-result.js';
import type { AdminResult } from '../../admin-result.js';
import { userView } from '../users.js';
import type { UserView } from '../users.js';
import { NotFound } from '../not-found.js';
import { otpHoldView } from '../../otp-settings.js';
import type { OtpHoldView } from '../../otp-settings.js';

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

const accountFact = (action: string, id: number, detail?: AuditFact['detail']): AuditFact => ({
  action,
  accountId: id,
  object: { type: 'account', id },
  ...(detail ? { detail } : {}),
});

export class ProviderConsole {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly actor: Actor,
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

  /** An account with its panel users; NotFound when there is none. */
  async account(id: number): Promise<{ account: AccountView; users: UserView[] }> {
    const found = await this.store.accounts.getAccount(id);
    if (!found) throw new NotFound(`no account ${id}`);
    return { account: accountView(found), users: (await this.store.users.usersOf(id)).map(userView) };
  }

  async ledger(accountId: number, before: number | undefined, limit = ledgerPageSize): Promise<Paged<LedgerEntry>> {
    return paged(await this.store.console.ledger(accountId, before, limit + 1), limit, (e) => e.id);
  }

  createAccount(input: AccountInput): Promise<AccountView> {
    return this.audit.change(
      this.actor,
      (store) => this.admin(store).createAccount(input),
      (made) => accountFact('account.create', made.id, { name: made.name, balance_main: made.balance_main }),
    );
  }

  /** Suspended: every API call of the account's keys is refused (TS-1030), as `admin account update --status Suspended` does. */
  setStatus(id: number, status: 'Active' | 'Suspended'): Promise<AccountView> {
    return this.audit.change(
      this.actor,
      (store) => this.admin(store).updateAccount(id, { status }, {}).catch(missing(id)),
      () => accountFact(status === 'Suspended' ? 'account.suspend' : 'account.reactivate', id),
    );
  }

  topup(id: number, amount: number, international: boolean): Promise<BalancesView> {
    return this.audit.change(
      this.actor,
      (store) => this.admin(store).topup(id, amount, international).catch(missing(id)),
      () => accountFact('account.topup', id, { amount, bucket: international ? 'international' : 'main' }),
    );
  }

  /** AdminError: the balance does not cover the amount (the fields are the page's to check). */
  debit(id: number, amount: number, international: boolean, reason: string): Promise<BalancesView> {
    return this.audit.change(
      this.actor,
      (store) => this.admin(store).debit(id, amount, international, reason).catch(missing(id)),
      (done) =>
        accountFact('account.debit', id, {
          amount,
          bucket: international ? 'international' : 'main',
          reason: done.reason,
        }),
    );
  }

  async pendingSenderIds(after: number | undefined, limit = pendingPageSize): Promise<Paged<PendingSenderId>> {
    return paged(await this.store.console.pendingSenderIds(after, limit + 1), limit, (s) => s.id);
  }

  /** ADM-DECIDED when someone decided it meanwhile; ADM-NOT-FOUND when there is no such request. */
  approveSenderId(id: number): Promise<AdminResult<SenderIdView>> {
    return this.review(id, 'sender-id.approve', (review) => review.approve(id));
  }

  rejectSenderId(id: number, reason: string): Promise<AdminResult<SenderIdView>> {
    return this.review(id, 'sender-id.reject', (review) => review.reject(id, reason));
  }

  /** The prefixes the OTP conversion watch holds now, newest first. */
  async otpHolds(limit = 500): Promise<OtpHoldView[]> {
    return (await this.store.otp.holds({ active: true, limit })).map(otpHoldView);
  }

  /** Releases a key's hold of a prefix, as `haberci admin otp release` does; NotFound when none stands. */
  releaseOtpHold(keyId: number, prefix: string): Promise<{ accountId: number; released: number }> {
    return this.audit.change(
      this.actor,
      async (store) => {
        const key = await store.keys.getKey(keyId);
        if (!key) throw new NotFound(`no key ${keyId}`);
        const released = await store.otp.release(keyId, prefix, this.clock.now());
        if (released === 0) throw new NotFound(`no standing OTP hold of ${prefix} for key ${keyId}`);
        return { accountId: key.accountId, released };
      },
      (done) => ({
        action: 'otp.release',
        accountId: done.accountId,
        object: { type: 'key', id: keyId },
        detail: { prefix },
      }),
    );
  }

  private review(
    id: number,
    action: string,
    decide: (review: SenderIdReview) => Promise<AdminResult<SenderIdView & { reason?: string | null }>>,
  ): Promise<AdminResult<SenderIdView>> {
    return this.audit.change(
      this.actor,
      async (store) => named(await decide(new SenderIdReview(store, this.clock, true)), id, 'no sender ID'),
      (done) =>
        done.ok
          ? {
              action,
              accountId: done.value.account_id,
              object: { type: 'sender-id', id },
              detail: {
                title: done.value.title,
                ...(done.value.reason === undefined ? {} : { reason: done.value.reason }),
              },
            }
          : null,
    );
  }
}

/**
 * AdminService says "no account with id N" (and SenderIdReview "no sender ID ...") as an
 * AdminError: the console answers it as a page not found; other refusals pass as they are.
 */
/** The console's words for a service's ADM-NOT-FOUND ("no account N"); other failures pass as they are. */
function named<T>(result: AdminResult<T>, id: number, start = 'no account'): AdminResult<T> {
  return !result.ok && result.code === 'ADM-NOT-FOUND' ? notFound(`${start} ${id}`) : result;
}

function missing(id: number, start = 'no account'): (error: unknown) => never {
  return (error) => {
    if (error instanceof AdminError && error.message.startsWith(start)) throw new NotFound(`${start} ${id}`);
    throw error;
  };
}
