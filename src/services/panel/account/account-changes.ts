/**
 * How a customer's change is made: on the store of one transaction, with its audit row
 * (AuditLog.change), on the customer's account, and only while the account is active. Every
 * change of the customer side goes through here, so its rules are in one place: a
 * suspended account's users read and change nothing of the account (docs/decisions.md,
 * "A suspended account in the panel").
 */
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { AuditFact, AuditLog, UserActor } from '../../audit-log.js';

/** Who acts on the customer side: a signed-in user of one account, from the request's address. */
export interface Customer {
  accountId: number;
  actor: UserActor;
}

/** The account is suspended: nothing of it may be sent, charged or changed. */
export class AccountSuspended extends Error {}

/** A customer's fact: the account is always theirs. */
type CustomerFact = Omit<AuditFact, 'accountId'>;

export class AccountChanges {
  constructor(
    private readonly audit: AuditLog,
    private readonly customer: Customer,
  ) {}

  /** Makes a change in one transaction with its row; `fact` null: nothing changed, no row. */
  make<T>(work: (store: Store) => Promise<T>, fact: (done: T) => CustomerFact | null): Promise<T> {
    return this.audit.change(
      this.customer.actor,
      async (store) => {
        await this.refuseSuspended(store);
        return work(store);
      },
      (done) => this.ofAccount(fact(done)),
    );
  }

  /**
   * For a change whose use case owns its transaction (a send, SendPlan.alongside): what to
   * write inside it, from the id it made.
   */
  alongside(fact: (id: number) => CustomerFact): (store: Store, id: number) => Promise<void> {
    return async (store, id) => {
      await this.refuseSuspended(store);
      const row = this.ofAccount(fact(id));
      if (row !== null) await this.audit.record(this.customer.actor, row, store);
    };
  }

  /** The one check of the rule, on the change's own transaction (so it sees a suspension committed before it). */
  private async refuseSuspended(store: Store): Promise<void> {
    const account = await store.accounts.getAccount(this.customer.accountId);
    if (account?.status === 'Suspended') throw new AccountSuspended(`account ${this.customer.accountId} is suspended`);
  }

  private ofAccount(fact: CustomerFact | null): AuditFact | null {
    return fact === null ? null : { ...fact, accountId: this.customer.accountId };
  }
}

/**
 * A part of the customer's services that reads the store and makes its changes through
 * AccountChanges (sender IDs, groups, blocking list, consents, OTP, templates).
 */
export abstract class CustomerPart {
  constructor(
    protected readonly deps: { store: Store; clock: Clock },
    protected readonly customer: Customer,
    protected readonly changes: AccountChanges,
  ) {}
}
