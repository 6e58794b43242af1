import type { PanelArea } from '../context.js';
import { signInArea } from './sign-in.js';
import { keysArea } from './keys.js';
import { senderIdsArea } from './sender-ids.js';
import { accountArea } from './account.js';
import { dataAreas } from './data.js';
import { providerAreas } from './provider.js';

/** Every area of the panel. The data pages list theirs in ./data.ts. */
export const panelAreas: readonly PanelArea[] = [
  signInArea,
  keysArea,
  senderIdsArea,
  accountArea,
  ...dataAreas,
  ...providerAreas,
];
