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
import { ok } from '../../../domain/result.js';
import { notFound } from '../../admin-result.js';
import type { AdminResult } from '../../admin-result.js';
import { userView } from '../users.js';
import type { UserView } from '../users.js';
import { otpHoldView } from '../../otp-settings.js';
import type { OtpHoldView } from '../../otp-settings.js';
import { paged } from '../paged.js';
import type { Paged } from '../paged.js';

export const accountPageSize = 50;
export const ledgerPageSize = 50;
export const pendingPageSize = 50;

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

  /** An account with its panel users; ADM-NOT-FOUND when there is none. */
  async account(id: number): Promise<AdminResult<{ account: AccountView; users: UserView[] }>> {
    const found = await this.store.accounts.getAccount(id);
    if (!found) return notFound(`no account ${id}`);
    return ok({ account: accountView(found), users: (await this.store.users.usersOf(id)).map(userView) });
  }

  async ledger(accountId: number, before: number | undefined, limit = ledgerPageSize): Promise<Paged<LedgerEntry>> {
    return paged(await this.store.console.ledger(accountId, before, limit + 1), limit, (e) => e.id);
  }

  createAccount(input: AccountInput): Promise<AdminResult<AccountView>> {
    return this.audit.change(
      this.actor,
      (store) => this.admin(store).createAccount(input),
      (made) =>
        made.ok
          ? accountFact('account.create', made.value.id, {
              name: made.value.name,
              balance_main: made.value.balance_main,
            })
          : null,
    );
  }

  /** Suspended: every API call of the account's keys is refused (TS-1030), as `admin account update --status Suspended` does. */
  setStatus(id: number, status: 'Active' | 'Suspended'): Promise<AdminResult<AccountView>> {
    return this.audit.change(
      this.actor,
      async (store) => named(await this.admin(store).updateAccount(id, { status }, {}), id),
      (done) => (done.ok ? accountFact(status === 'Suspended' ? 'account.suspend' : 'account.reactivate', id) : null),
    );
  }

  topup(id: number, amount: number, international: boolean): Promise<AdminResult<BalancesView>> {
    return this.audit.change(
      this.actor,
      async (store) => named(await this.admin(store).topup(id, amount, international), id),
      (done) =>
        done.ok ? accountFact('account.topup', id, { amount, bucket: international ? 'international' : 'main' }) : null,
    );
  }

  /** ADM-REFUSED: the balance does not cover the amount (the fields are the page's to check). */
  debit(id: number, amount: number, international: boolean, reason: string): Promise<AdminResult<BalancesView>> {
    return this.audit.change(
      this.actor,
      async (store) => named(await this.admin(store).debit(id, amount, international, reason), id),
      (done) =>
        done.ok
          ? accountFact('account.debit', id, {
              amount,
              bucket: international ? 'international' : 'main',
              reason: done.value.reason,
            })
          : null,
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

  /** Releases a key's hold of a prefix, as `haberci admin otp release` does; ADM-NOT-FOUND when none stands. */
  releaseOtpHold(keyId: number, prefix: string): Promise<AdminResult<{ accountId: number; released: number }>> {
    return this.audit.change(
      this.actor,
      async (store): Promise<AdminResult<{ accountId: number; released: number }>> => {
        const key = await store.keys.getKey(keyId);
        if (!key) return notFound(`no key ${keyId}`);
        // A release that releases nothing wrote nothing: the transaction has nothing to undo.
        const released = await store.otp.release(keyId, prefix, this.clock.now());
        if (released === 0) return notFound(`no standing OTP hold of ${prefix} for key ${keyId}`);
        return ok({ accountId: key.accountId, released });
      },
      (done) =>
        done.ok
          ? {
              action: 'otp.release',
              accountId: done.value.accountId,
              object: { type: 'key', id: keyId },
              detail: { prefix },
            }
          : null,
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
 * The console's words for a service's ADM-NOT-FOUND ("no account N", "no sender ID N"),
 * which its pages answer as "Page not found"; other failures pass as they are.
 */
function named<T>(result: AdminResult<T>, id: number, start = 'no account'): AdminResult<T> {
  return !result.ok && result.code === 'ADM-NOT-FOUND' ? notFound(`${start} ${id}`) : result;
}
