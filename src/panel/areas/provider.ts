import type { PanelArea } from '../context.js';
import { providerHomeArea } from './provider-home.js';
import { providerAccountsArea } from './provider-accounts.js';
import { providerSenderIdsArea } from './provider-sender-ids.js';
import { providerAuditArea } from './provider-audit.js';

/**
 * The provider console's areas (issue 22): its home, accounts, sender ID requests and the
 * audit log. Console pages of other work (carriers, traffic) may list theirs here too.
 */
export const providerAreas: readonly PanelArea[] = [providerHomeArea, providerAccountsArea, providerSenderIdsArea, providerAuditArea];
