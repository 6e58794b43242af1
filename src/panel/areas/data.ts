import type { PanelArea } from '../context.js';
import { overviewArea } from './overview.js';
import { sendArea } from './send.js';
import { messagesArea } from './messages.js';
import { campaignsArea } from './campaigns.js';
import { groupsArea } from './groups.js';
import { blocklistArea } from './blocklist.js';
import { dataAssetsArea } from './data-assets.js';

/**
 * The data pages' areas (overview, send SMS, messages, campaigns, groups and contacts,
 * blocking list): one file per area under src/panel/areas/, listed here. The other areas
 * are in ./index.ts.
 */
export const dataAreas: readonly PanelArea[] = [
  overviewArea,
  sendArea,
  messagesArea,
  campaignsArea,
  groupsArea,
  blocklistArea,
  dataAssetsArea,
];
