import { controlReply } from './replies.js';
import { groupControl } from './campaign-fields.js';

/**
 * POST /group/pause (../shared/interfaces.md, "Campaign controls"): holds what of a group send is not yet submitted, across restarts and processes, until resume. By `rapor_id`,
 * with the permission of /group/send (docs/decisions.md, "Campaign controls").
 */
export const groupPause = groupControl({
  path: '/group/pause',
  summary: 'Pause a group send: what is not yet submitted waits until resume',
  reply: controlReply,
  run: (services, accountId, raporId) => services.campaigns.pauseGroup(accountId, raporId),
});
