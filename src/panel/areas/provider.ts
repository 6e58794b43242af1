import type { PanelArea } from '../context.js';
import { providerHomeArea } from './provider-home.js';
import { providerAccountsArea } from './provider-accounts.js';
import { providerAccountArea } from './provider-account.js';
import { providerSenderIdsArea } from './provider-sender-ids.js';
import { providerAuditArea } from './provider-audit.js';
import { providerCarriersArea } from './provider-carriers.js';
import { providerTrafficArea } from './provider-traffic.js';

/**
 * The provider console's areas (issue 22): its home, accounts (the list and one account's page), sender ID requests, the live
 * carriers and traffic pages, and the audit log.
 */
export const providerAreas: readonly PanelArea[] = [
  providerHomeArea,
  providerAccountsArea,
  providerAccountArea,
  providerSenderIdsArea,
  providerCarriersArea,
  providerTrafficArea,
  providerAuditArea,
];
