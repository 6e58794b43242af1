/**
 * The SMPP server's services (src/smpp-server/, docs/smpp.md, "Customers over SMPP"): its one
 * way to the store. A submit_sm itself goes through the API's pipeline and services
 * (src/endpoints/pipeline.ts); what is the SMPP server's own is here, by concern: its users'
 * credentials, their binds across the cluster, the parts of concatenated submits, what is
 * owed to them (receipts and MO), the failed binds counted, and query_sm's read.
 */
import type { Store } from '../../ports/store.js';
import type { MessageRecord } from '../../ports/reports.js';
import type { SmppCredentials, SmppUser } from '../../ports/smpp-users.js';
import type { SmppSessionState } from '../../ports/smpp-binds.js';
import type { InboundRecord } from '../../ports/inbound-store.js';
import type { BindAttempts } from './bind-guesses.js';
import { ConcatenatedParts } from './concatenated-parts.js';
import { CustomerBinds } from './customer-binds.js';
import { OwedToCustomers } from './owed-to-customers.js';

export type { InboundRecord, MessageRecord, SmppCredentials, SmppSessionState, SmppUser };

/** The parts of the store the SMPP server's services use. */
export type SmppServiceStore = Pick<Store, 'smppUsers' | 'smppParts' | 'smppBinds' | 'outbox' | 'reports' | 'users'>;

export class SmppService {
  readonly binds: CustomerBinds;
  readonly parts: ConcatenatedParts;
  readonly owed: OwedToCustomers;
  /** Where failed binds are counted, per system_id and per peer address (the store's sign-in attempts). */
  readonly bindAttempts: BindAttempts;

  constructor(private readonly store: SmppServiceStore) {
    this.binds = new CustomerBinds(store.smppBinds);
    this.parts = new ConcatenatedParts(store.smppParts);
    this.owed = new OwedToCustomers(store.outbox);
    this.bindAttempts = store.users;
  }

  /** The user and hashes of an enabled or disabled user by its system_id; null when none. */
  credentials(systemId: string): Promise<SmppCredentials | null> {
    return this.store.smppUsers.credentials(systemId);
  }

  getUser(id: number): Promise<SmppUser | null> {
    return this.store.smppUsers.getUser(id);
  }

  /** One of the account's own messages (query_sm); null when it has none of that id. */
  findMessage(id: number, accountId: number): Promise<MessageRecord | null> {
    return this.store.reports.findMessage(id, accountId);
  }
}
