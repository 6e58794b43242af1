/**
 * The panel's services, built once by the composition root: sessions (sign-in, links, a
 * user's own sessions), the customer side's door, the reseller side's and the provider side's door. The panel
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
import { ResellerPanel } from './reseller/reseller-panel.js';
import { BrandService } from '../brands.js';

export interface PanelServices {
  sessions: UserService;
  account: CustomerPanel;
  provider: ProviderPanel;
  /** The reseller side: a reseller account's users, over its customers. */
  reseller: ResellerPanel;
  /** Resellers' brands: the panel served on a brand's host (docs/resellers.md, "White label"). */
  brands: BrandService;
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
    reseller: new ResellerPanel({ store, clock, audit }),
    brands: new BrandService(store, clock),
  };
}
