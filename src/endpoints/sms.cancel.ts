import { z } from 'zod';
import { answered, defineEndpoint, ourStatuses } from './endpoint.js';
import { cancelReply } from './replies.js';
import { smsIdField } from './fields.js';
import { smsSendCommon } from './sms.send.js';

/**
 * POST /sms/cancel (../shared/interfaces.md, "Campaign controls"): a scheduled /sms/send by
 * its report id, or a message of an /sms/send by its sms_id, cancelled while not yet handed
 * to an operator; its credit comes back. The permissions of /sms/send (docs/decisions.md,
 * "Campaign controls"); an id that is no /sms/send of the account is TS-1020.
 */
export const smsCancel = defineEndpoint({
  path: '/sms/cancel',
  summary: 'Cancel a scheduled /sms/send (or a message of one) not yet handed to an operator',
  reply: cancelReply,
  ...smsSendCommon,
  statuses: {
    ...ourStatuses,
    'TS-1052': 400,
    'TS-1061': 403,
    'TS-1062': 403,
    'TS-1020': 403,
  },
  request: z.object({ sms_id: smsIdField }),
  async handle({ body, caller, services }) {
    return answered('TS-1064', await services.campaigns.cancelSms(caller.account.id, body.sms_id));
  },
});
