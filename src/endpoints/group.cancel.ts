import { cancelReply } from './replies.js';
import { groupControl } from './campaign-fields.js';

/**
 * POST /group/cancel (../shared/interfaces.md, "Campaign controls"): cancels what of a group send is not yet handed to an operator and gives its credit back. By `rapor_id`,
 * with the permission of /group/send (docs/decisions.md, "Campaign controls").
 */
export const groupCancel = groupControl({
  path: '/group/cancel',
  summary: 'Cancel a group send: what is not yet handed to an operator, with its credit back',
  reply: cancelReply,
  run: (services, accountId, raporId) => services.campaigns.cancelGroup(accountId, raporId),
});
