/**
 * Every area of the panel, once, by the side it serves: signing in (anyone), the customer's
 * pages, the reseller's (a reseller account's users: its customers) and the provider's console. The plugin mounts each side's areas with that side's
 * door to the services and its access rule; each side's menu is its areas' entries, in
 * their order. A new page is a folder of its side with its page(s) and its catalogue, and
 * one line here.
 */
import type { UserService } from '../services/panel/users.js';
import type { PanelArea } from './context.js';
import { sessionArea } from './session/sign-in.js';
import type { AccountArea } from './account/door.js';
import { overviewArea } from './account/overview/overview.js';
import { sendArea } from './account/send/send.js';
import { templatesArea } from './account/templates/templates.js';
import { messagesArea } from './account/messages/messages.js';
import { campaignsArea } from './account/campaigns/campaigns.js';
import { groupsArea } from './account/groups/groups.js';
import { blocklistArea } from './account/blocklist/blocklist.js';
import { consentsArea } from './account/consents/consents.js';
import { keysArea } from './account/keys/keys.js';
import { otpArea } from './account/otp/otp.js';
import { senderIdsArea } from './account/sender-ids/sender-ids.js';
import { settingsArea } from './account/settings/settings.js';
import { statementArea } from './account/statement/statement.js';
import type { ResellerArea } from './reseller/door.js';
import { resellerCustomersArea } from './reseller/customers/customers.js';
import { resellerSenderIdsArea } from './reseller/sender-ids/sender-ids.js';
import { resellerStatementArea } from './reseller/statement/statement.js';
import type { ProviderArea } from './provider/door.js';
import { providerHomeArea } from './provider/home/home.js';
import { providerAccountsArea } from './provider/accounts/accounts.js';
import { providerSenderIdsArea } from './provider/sender-ids/sender-ids.js';
import { providerCarriersArea } from './provider/carriers/carriers.js';
import { providerTrafficArea } from './provider/traffic/traffic.js';
import { providerSmppSessionsArea } from './provider/smpp-sessions/smpp-sessions.js';
import { providerAuditArea } from './provider/audit/audit.js';
import { providerOtpHoldsArea } from './provider/otp-holds/otp-holds.js';

export interface PanelAreas {
  session: readonly PanelArea<UserService>[];
  account: readonly AccountArea[];
  /** The reseller side: shown to a reseller account's users after their account's own pages. */
  reseller: readonly ResellerArea[];
  provider: readonly ProviderArea[];
}

export const panelAreas: PanelAreas = {
  session: [sessionArea],
  account: [
    overviewArea,
    sendArea,
    templatesArea,
    messagesArea,
    campaignsArea,
    groupsArea,
    blocklistArea,
    consentsArea,
    keysArea,
    otpArea,
    senderIdsArea,
    settingsArea,
    statementArea,
  ],
  reseller: [resellerCustomersArea, resellerSenderIdsArea, resellerStatementArea],
  provider: [
    providerHomeArea,
    providerAccountsArea,
    providerSenderIdsArea,
    providerCarriersArea,
    providerSmppSessionsArea,
    providerTrafficArea,
    providerOtpHoldsArea,
    providerAuditArea,
  ],
};

/** Where `/panel/` sends each side's users. */
export const homes = { account: '/keys', provider: '/provider' } as const;
