import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { SendService } from '../send-service.js';
import type { GroupService } from '../group-service.js';
import type { BlocklistService } from '../blocklist-service.js';
import { PanelOverviewService } from './panel-overview.js';
import { PanelMessagesService } from './panel-messages.js';
import { PanelCampaignsService } from './panel-campaigns.js';
import { PanelSendService } from './panel-send.js';
import { PanelDirectoryService } from './panel-directory.js';

/** The services of the panel's data pages (issue 21), built in the composition root. */
export interface PanelDataServices {
  overview: PanelOverviewService;
  messages: PanelMessagesService;
  campaigns: PanelCampaignsService;
  send: PanelSendService;
  directory: PanelDirectoryService;
}

export function panelDataServices(deps: {
  store: Store;
  clock: Clock;
  sends: SendService;
  groups: GroupService;
  blocklist: BlocklistService;
}): PanelDataServices {
  return {
    overview: new PanelOverviewService(deps.store, deps.clock),
    messages: new PanelMessagesService(deps.store),
    campaigns: new PanelCampaignsService(deps.store),
    send: new PanelSendService(deps.store, deps.sends, deps.clock),
    directory: new PanelDirectoryService(deps.store, deps.groups, deps.blocklist),
  };
}
