/**
 * How a customer's change is made: on the store of one transaction, with its audit row
 * (AuditLog.change), on the customer's account. Every change of the customer side goes
 * through here, so its rules are in one place.
 */
import type { Store } from '../../../ports/store.js';
import type { AuditFact, AuditLog, UserActor } from '../../audit-log.js';

/** Who acts on the customer side: a signed-in user of one account, from the request's address. */
export interface Customer {
  accountId: number;
  actor: UserActor;
}

/** A customer's fact: the account is always theirs. */
type CustomerFact = Omit<AuditFact, 'accountId'>;

export class AccountChanges {
  constructor(
    private readonly audit: AuditLog,
    private readonly customer: Customer,
  ) {}

  /** Makes a change in one transaction with its row; `fact` null: nothing changed, no row. */
  make<T>(work: (store: Store) => Promise<T>, fact: (done: T) => CustomerFact | null): Promise<T> {
    return this.audit.change(this.customer.actor, work, (done) => this.ofAccount(fact(done)));
  }

  /**
   * For a change whose use case owns its transaction (a send, SendPlan.alongside): what to
   * write inside it, from the id it made.
   */
  alongside(fact: (id: number) => CustomerFact): (store: Store, id: number) => Promise<void> {
    return async (store, id) => {
      const row = this.ofAccount(fact(id));
      if (row !== null) await this.audit.record(this.customer.actor, row, store);
    };
  }

  private ofAccount(fact: CustomerFact | null): AuditFact | null {
    return fact === null ? null : { ...fact, accountId: this.customer.accountId };
  }
}
