/**
 * The customer side's door to the services: everything a customer page may use, built for
 * one signed-in user of one account (`for`), each part restricted to that account. Nothing
 * here reaches the provider's console: its types are not in reach of a customer page.
 */
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { SendService } from '../../send-service.js';
import type { WebhookAdmin } from '../../webhook-admin.js';
import type { AuditLog } from '../../audit-log.js';
import type { PasswordChange, UserService } from '../users.js';
import { AccountChanges } from './account-changes.js';
import type { Customer } from './account-changes.js';
import { CustomerAccount } from './settings.js';
import { CustomerKeys } from './keys.js';
import { CustomerSenderIds } from './sender-ids.js';
import { CustomerOverview } from './overview.js';
import { CustomerMessages } from './messages.js';
import { CustomerCampaigns } from './campaigns.js';
import type { CampaignService } from '../../campaign-controls.js';
import { CustomerSend } from './send.js';
import { CustomerGroups } from './groups.js';
import { CustomerBlocklist } from './blocklist.js';
import { CustomerConsents } from './consents.js';
import { CustomerOtp } from './otp.js';
import { AccountStatements } from '../../account-statements.js';
import { monthBucket } from '../../../domain/istanbul-time.js';
import type { Statement } from '../../account-statements.js';
import type { AdminResult } from '../../admin-result.js';
import { CustomerTemplates } from './templates.js';
import type { ShortLinkService } from '../../short-link-service.js';

export interface CustomerDeps {
  store: Store;
  clock: Clock;
  audit: AuditLog;
  sends: SendService;
  webhooks: WebhookAdmin;
  users: UserService;
  /** The API's campaign controls (the panel's Pause, Resume and Cancel). */
  campaigns: CampaignService;
  /** The API's short links (a panel send's `short_links`, a campaign's clicks). */
  links: ShortLinkService;
}

/** What a customer page may use, for one user of one account. */
export interface CustomerServices {
  account: CustomerAccount;
  keys: CustomerKeys;
  senderIds: CustomerSenderIds;
  overview: CustomerOverview;
  messages: CustomerMessages;
  campaigns: CustomerCampaigns;
  send: CustomerSend;
  groups: CustomerGroups;
  blocklist: CustomerBlocklist;
  consents: CustomerConsents;
  otp: CustomerOtp;
  /** The account's own statement of a month, `YYYY-MM`, this Istanbul month without one (docs/resellers.md, "Statements"). */
  statement(month?: string): Promise<AdminResult<Statement>>;
  templates: CustomerTemplates;
  /** The signed-in user's own password (not a change of the account). */
  changePassword(current: string, next: string): Promise<PasswordChange>;
}

export class CustomerPanel {
  constructor(private readonly deps: CustomerDeps) {}

  /** Whether the account is suspended (its pages say so; AccountChanges refuses its changes). */
  async suspended(accountId: number): Promise<boolean> {
    return (await this.deps.store.accounts.getAccount(accountId))?.status === 'Suspended';
  }

  /** Whether the account is suspended, and whether it is a reseller (its users see the reseller side too): one read. */
  async standing(accountId: number): Promise<{ suspended: boolean; reseller: boolean }> {
    const account = await this.deps.store.accounts.getAccount(accountId);
    return { suspended: account?.status === 'Suspended', reseller: account?.reseller === true };
  }

  for(customer: Customer): CustomerServices {
    const { deps } = this;
    const { store, clock } = deps;
    const changes = new AccountChanges(deps.audit, customer);
    return {
      account: new CustomerAccount(deps, customer, changes),
      keys: new CustomerKeys(deps, customer, changes),
      senderIds: new CustomerSenderIds(deps, customer, changes),
      overview: new CustomerOverview(store, clock, customer.accountId),
      messages: new CustomerMessages(store, customer.accountId),
      campaigns: new CustomerCampaigns(store, customer.accountId, { campaigns: deps.campaigns, changes }),
      send: new CustomerSend(deps, customer, changes),
      groups: new CustomerGroups(deps, customer, changes),
      blocklist: new CustomerBlocklist(deps, customer, changes),
      consents: new CustomerConsents(deps, customer, changes),
      otp: new CustomerOtp(deps, customer, changes),
      statement: (month) =>
        new AccountStatements(store).statement(customer.accountId, month ?? monthBucket(clock.now())),
      templates: new CustomerTemplates(deps, customer, changes),
      changePassword: (current, next) => deps.users.changePassword(customer.actor, current, next),
    };
  }
}
