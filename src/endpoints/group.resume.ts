import { controlReply } from './replies.js';
import { groupControl } from './campaign-fields.js';

/**
 * POST /group/resume (../shared/interfaces.md, "Campaign controls"): gives a paused group send back to the dispatcher. By `rapor_id`,
 * with the permission of /group/send (docs/decisions.md, "Campaign controls").
 */
export const groupResume = groupControl({
  path: '/group/resume',
  summary: 'Resume a paused group send',
  reply: controlReply,
  run: (services, accountId, raporId) => services.campaigns.resumeGroup(accountId, raporId),
});
