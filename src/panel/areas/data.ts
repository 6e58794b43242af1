import type { PanelArea } from '../context.js';

/**
 * The data pages' areas (overview, send SMS, messages, campaigns, groups and contacts,
 * blocking list): one file per area under src/panel/areas/, listed here. The other areas
 * are in ./index.ts.
 */
export const dataAreas: readonly PanelArea[] = [];
