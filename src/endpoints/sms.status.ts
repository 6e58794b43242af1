import { z } from 'zod';
import { commonStatuses, defineEndpoint, smsSendKey } from './endpoint.js';
import { smsStatusReply } from './replies.js';
import { smsIdField } from './fields.js';
import { ok } from '../domain/result.js';

/** POST /sms/status: delivery state of one message of an immediate send. */
export const smsStatus = defineEndpoint({
  path: '/sms/status',
  summary: 'Read the delivery state of one message',
  reply: smsStatusReply,
  envelope: 'result',
  key: smsSendKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['post_request', 'check_sms_status'],
  limited: true,
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
  async handle({ body, caller, services }) {
    const found = await services.status.messageStatus(caller.account.id, body.sms_id);
    if (!found.ok) return found;
    return ok({ code: found.value.code, fields: found.value.fields });
  },
});
