/**
 * The reseller side's door to the services: what a signed-in user of a reseller account may
 * do with the reseller's customers (docs/resellers.md, "In the panel"), built for one user
 * (`for`). Every read and change is of the reseller's own customers only: another account's
 * id, whoever owns it, is ADM-NOT-FOUND, as an id that does not exist. Funding, suspension and
 * the refund policy go through ResellerService, the API's /subaccounts/... use cases, with
 * the user as the audit row's actor; a sender ID's first review writes its row with it.
 */
import type { Account } from '../../../ports/accounts.js';
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { PendingSenderId } from '../../../ports/console-queries.js';
import { monthBucket } from '../../../domain/istanbul-time.js';
import type { Failure } from '../../../domain/result.js';
import type { AuditLog, UserActor } from '../../audit-log.js';
import { ResellerService, customerView, maxMoveAmount } from '../../reseller-service.js';
import type { CustomerView, FundAnswer, ResellerCaller } from '../../reseller-service.js';
import { usageOf } from '../../reseller-usage.js';
import type { Usage } from '../../reseller-usage.js';
import { AccountStatements, monthBounds } from '../../account-statements.js';
import type { ResellerStatement } from '../../account-statements.js';
import { senderIdView } from '../../sender-id-admin.js';
import type { SenderIdView } from '../../sender-id-admin.js';
import { ok } from '../../../domain/result.js';
import { notFound, type AdminFailure, type AdminResult } from '../../admin-result.js';
import type { SenderId } from '../../../ports/sender-ids.js';
import { AccountSuspended } from '../account/account-changes.js';
import { paged } from '../paged.js';
import type { Paged } from '../paged.js';

export const customerPageSize = 50;
export const awaitingPageSize = 50;
export { maxMoveAmount };

/** A customer in the reseller's list: its balances and this month's traffic. */
export interface CustomerRow extends CustomerView {
  month: Usage['counts'];
}

export interface CustomerDetail extends CustomerRow {
  refund_undelivered: boolean;
  sender_ids: SenderIdView[];
}

/** A move of credit as the confirmation shows it: each balance before and after. */
export interface FundPreview {
  amount: number;
  international: boolean;
  reseller: { before: number; after: number };
  customer: { before: number; after: number };
  /** The giver's balance does not cover it: nothing would move. */
  insufficient: boolean;
}

export interface ResellerDeps {
  store: Store;
  clock: Clock;
  audit: AuditLog;
}

export class ResellerPanel {
  private readonly resellers: ResellerService;
  private readonly statements: AccountStatements;

  constructor(private readonly deps: ResellerDeps) {
    this.resellers = new ResellerService(deps.store, deps.clock);
    this.statements = new AccountStatements(deps.store);
  }

  for(caller: { accountId: number; user: UserActor }): ResellerDesk {
    return new ResellerDesk(this.deps, this.resellers, this.statements, caller);
  }
}

export class ResellerDesk {
  constructor(
    private readonly deps: ResellerDeps,
    private readonly resellers: ResellerService,
    private readonly statements: AccountStatements,
    private readonly caller: ResellerCaller & { user: UserActor },
  ) {}

  /** The Istanbul month now, `YYYY-MM`. */
  thisMonth(): string {
    return monthBucket(this.deps.clock.now());
  }

  private async month(accountId: number): Promise<Usage['counts']> {
    const bounds = monthBounds(this.thisMonth());
    if (!bounds.ok) throw new Error(bounds.message);
    const { from, to } = bounds.value;
    const usage = await usageOf(this.deps.store, accountId, from, to);
    if (!usage.ok) throw new Error(usage.message);
    return usage.value.counts;
  }

  /** The reseller's own account (its balances). */
  async own(): Promise<AdminResult<Account>> {
    const account = await this.deps.store.accounts.getAccount(this.caller.accountId);
    if (account?.reseller !== true) return notFound('not a reseller');
    return ok(account);
  }

  /** A customer of this reseller, else ADM-NOT-FOUND (another reseller's, the provider's, none). */
  private async owned(id: number): Promise<AdminResult<Account>> {
    const account = await this.resellers.owned(this.caller, id);
    if (!account) return notFound(`no customer ${id} of this reseller`);
    return ok(account);
  }

  /** Changes are refused while the reseller's own account is suspended, as the customer side's are. */
  private async refuseSuspended(): Promise<AdminResult<Account>> {
    const own = await this.own();
    if (own.ok && own.value.status === 'Suspended')
      throw new AccountSuspended(`account ${this.caller.accountId} is suspended`);
    return own;
  }

  /** ADM-NOT-FOUND for "not yours" (TS-1170), the only refusal left once the page checked the fields. */
  private notYours(failure: Failure): AdminFailure {
    return notFound(failure.message ?? 'not a customer of this reseller');
  }

  async customers(after: number | undefined): Promise<Paged<CustomerRow>> {
    const page = await this.deps.store.accounts.listAccounts({
      parentId: this.caller.accountId,
      ...(after !== undefined ? { after } : {}),
      limit: customerPageSize + 1,
    });
    const shown = paged(page, customerPageSize, (a) => a.id);
    const items = await Promise.all(
      shown.items.map(async (a) => ({ ...customerView(a), month: await this.month(a.id) })),
    );
    return { items, next: shown.next };
  }

  async customer(id: number): Promise<AdminResult<CustomerDetail>> {
    const owned = await this.owned(id);
    if (!owned.ok) return owned;
    const account = owned.value;
    const [month, senders] = await Promise.all([this.month(id), this.deps.store.senderIds.listOf(id)]);
    return ok({
      ...customerView(account),
      month,
      refund_undelivered: account.refundUndelivered === true,
      sender_ids: senders.map(senderIdView),
    });
  }

  /** What a move would do, from the balances now: shown for confirmation before anything moves. */
  async preview(id: number, amount: number, international: boolean): Promise<AdminResult<FundPreview>> {
    const own = await this.own();
    if (!own.ok) return own;
    const owned = await this.owned(id);
    if (!owned.ok) return owned;
    const [reseller, customer] = [own.value, owned.value];
    const of = (a: Account) => (international ? a.balanceInternational : a.balanceMain);
    const giver = amount > 0 ? of(reseller) : of(customer);
    return ok({
      amount,
      international,
      reseller: { before: of(reseller), after: of(reseller) - amount },
      customer: { before: of(customer), after: of(customer) + amount },
      insufficient: giver < Math.abs(amount),
    });
  }

  /** Moves credit as /subaccounts/fund does; `insufficient` when the giver's balance does not cover it. */
  async fund(id: number, amount: number, international: boolean): Promise<AdminResult<FundAnswer | 'insufficient'>> {
    const own = await this.refuseSuspended();
    if (!own.ok) return own;
    const done = await this.resellers.fund(this.caller, id, amount, international);
    if (done.ok) return ok(done.value);
    if (done.code === 'TS-1027') return ok('insufficient');
    return this.notYours(done);
  }

  async setStatus(id: number, status: Account['status']): Promise<AdminResult<CustomerView>> {
    const own = await this.refuseSuspended();
    if (!own.ok) return own;
    const done = await this.resellers.setStatus(this.caller, id, status);
    return done.ok ? ok(done.value) : this.notYours(done);
  }

  async setRefundPolicy(id: number, on: boolean): Promise<AdminResult<true>> {
    const own = await this.refuseSuspended();
    if (!own.ok) return own;
    const done = await this.resellers.setRefundPolicy(this.caller, id, on);
    return done.ok ? ok(true) : this.notYours(done);
  }

  /** The customers' sender-ID requests waiting for this reseller, oldest first. */
  async awaitingSenderIds(after: number | undefined): Promise<Paged<PendingSenderId>> {
    const rows = await this.deps.store.console.pendingSenderIds(after, awaitingPageSize + 1, this.caller.accountId);
    return paged(rows, awaitingPageSize, (s) => s.id);
  }

  /**
   * The reseller's review of its customer's request: approved, it goes on to the provider's
   * review (`pending`); rejected, it is rejected with the reason the customer reads. Only
   * a request still waiting for the reseller; ADM-NOT-FOUND for another account's or one
   * decided (found before anything is written: the review writes only a waiting request).
   */
  async reviewSenderId(
    id: number,
    decision: { approve: true } | { approve: false; reason: string },
  ): Promise<AdminResult<true>> {
    const own = await this.refuseSuspended();
    if (!own.ok) return own;
    const reason = decision.approve ? null : decision.reason.trim().slice(0, 500);
    if (reason === '') throw new Error('a rejection needs a reason');
    const reviewed = await this.deps.audit.change(
      this.caller.user,
      async (store): Promise<AdminResult<SenderId>> => {
        const sender = await store.senderIds.getSenderId(id);
        if (!sender || !(await this.resellers.owned(this.caller, sender.accountId, store)))
          return notFound(`no sender ID ${id} of this reseller's customers`);
        const status = decision.approve ? 'pending' : 'rejected';
        const done = await store.users.reviewSenderId(id, status, reason, this.deps.clock.now(), 'awaiting-reseller');
        return done ? ok(done) : notFound(`sender ID ${id} is not waiting for this reseller`);
      },
      (done) =>
        done.ok
          ? {
              action: decision.approve ? 'subaccount.sender-id.approve' : 'subaccount.sender-id.reject',
              accountId: done.value.accountId,
              object: { type: 'sender-id', id },
              detail: { title: done.value.title, reseller_id: this.caller.accountId, reason: reason ?? undefined },
            }
          : null,
    );
    return reviewed.ok ? ok(true) : reviewed;
  }

  /** The reseller's statement for a month (this one without) with each of its customers'. */
  async statement(month?: string): Promise<AdminResult<ResellerStatement>> {
    const own = await this.own();
    if (!own.ok) return own;
    const statement = await this.statements.statement(this.caller.accountId, month ?? this.thisMonth(), true);
    if (!statement.ok) return statement;
    if (!('customers' in statement.value)) return notFound('not a reseller');
    return ok(statement.value);
  }
}
