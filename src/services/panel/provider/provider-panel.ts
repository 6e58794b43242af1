/**
 * The provider side's door to the services: the console's use cases built for one signed-in
 * provider user (`for`), the audit log's search, and the live view of carriers and traffic
 * (absent outside `serve`).
 */
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { AuditLog, AuditPage, UserActor } from '../../audit-log.js';
import type { AuditSearch } from '../../../ports/audit-store.js';
import { ProviderConsole } from './provider-console.js';
import type { ProviderLive } from './provider-live.js';
import { AccountStatements } from '../../account-statements.js';
import type { ResellerStatement, Statement } from '../../account-statements.js';
import { notFound } from '../../admin-result.js';
import type { AdminResult } from '../../admin-result.js';
import { monthBucket } from '../../../domain/istanbul-time.js';

/** What a console page may use, for one provider user. */
export interface ProviderServices {
  console: ProviderConsole;
  auditSearch(query: Omit<AuditSearch, 'limit'>): Promise<AuditPage>;
  /** The carriers' and traffic's live figures; absent outside `serve` (the pages answer not found). */
  live: ProviderLive | undefined;
  now(): number;
  /** An account's statement of a month, `YYYY-MM` (this Istanbul month without one); a reseller's with each of its customers'. */
  statement(accountId: number, month?: string): Promise<AdminResult<Statement | ResellerStatement>>;
}

export class ProviderPanel {
  constructor(private readonly deps: { store: Store; clock: Clock; audit: AuditLog; live?: ProviderLive }) {}

  for(actor: UserActor): ProviderServices {
    const { store, clock, audit, live } = this.deps;
    return {
      console: new ProviderConsole(store, clock, audit, actor),
      auditSearch: (query) => audit.search(query),
      live,
      now: () => clock.now(),
      statement: async (accountId, month) => {
        const account = await store.accounts.getAccount(accountId);
        if (!account) return notFound(`no account ${accountId}`);
        const which = month ?? monthBucket(clock.now());
        return new AccountStatements(store).statement(accountId, which, account.reseller === true);
      },
    };
  }
}
