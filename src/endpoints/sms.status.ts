import { z } from 'zod';
import { commonStatuses, defineEndpoint, smsSendRules } from './endpoint.js';
import { smsStatusReply } from './replies.js';
import { smsIdField } from './fields.js';

/** POST /sms/status: delivery state of one message of an immediate send. */
export const smsStatus = defineEndpoint({
  path: '/sms/status',
  summary: 'Read the delivery state of one message',
  reply: smsStatusReply,
  ...smsSendRules,
  permissions: ['post_request', 'check_sms_status'],
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1050': 403,
    'TS-1052': 403,
    'TS-1031': 403,
    'TS-1061': 403,
    'TS-1063': 403,
    'TS-1030': 403,
    'TS-1020': 403,
  },
  request: z.object({ sms_id: smsIdField }),
  // The answer is the use case's: its code (found or not yet known) and fields.
  handle({ body, caller, services }) {
    return services.status.messageStatus(caller.account.id, body.sms_id);
  },
});
