/**
 * The panel's services, built once by the composition root: sessions (sign-in, links, a
 * user's own sessions), the customer side's door and the provider side's door. The panel
 * (src/panel/) calls nothing else.
 */
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { SendService } from '../send-service.js';
import type { WebhookAdmin } from '../webhook-admin.js';
import type { CampaignService } from '../campaign-controls.js';
import type { ShortLinkService } from '../short-link-service.js';
import { AuditLog } from '../audit-log.js';
import { UserService, defaultSessionPolicy } from './users.js';
import type { SessionPolicy } from './users.js';
import { CustomerPanel } from './account/customer-panel.js';
import { ProviderPanel } from './provider/provider-panel.js';
import type { ProviderLive } from './provider/provider-live.js';

export interface PanelServices {
  sessions: UserService;
  account: CustomerPanel;
  provider: ProviderPanel;
}

export function panelServices(deps: {
  store: Store;
  clock: Clock;
  sends: SendService;
  webhooks: WebhookAdmin;
  campaigns: CampaignService;
  links: ShortLinkService;
  sessionPolicy?: SessionPolicy;
  live?: ProviderLive | undefined;
}): PanelServices {
  const { store, clock } = deps;
  const audit = new AuditLog(store, clock);
  const sessions = new UserService(store, clock, deps.sessionPolicy ?? defaultSessionPolicy);
  return {
    sessions,
    account: new CustomerPanel({
      store,
      clock,
      audit,
      sends: deps.sends,
      webhooks: deps.webhooks,
      users: sessions,
      campaigns: deps.campaigns,
      links: deps.links,
    }),
    provider: new ProviderPanel({ store, clock, audit, ...(deps.live ? { live: deps.live } : {}) }),
  };
}
