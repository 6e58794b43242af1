import { z } from 'zod';
import { commonStatuses, defineEndpoint } from './endpoint.js';
import { smsStatusReply } from './replies.js';
import { integerField } from './fields.js';
import { ok } from '../domain/result.js';

/** POST /sms/status: delivery state of one message of an immediate send. */
export const smsStatus = defineEndpoint({
  path: '/sms/status',
  summary: 'Read the delivery state of one message',
  reply: smsStatusReply,
  envelope: 'result',
  key: { min: 30, max: 128, missing: 'TS-1050', malformed: 'TS-1050' },
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
  request: z.object({
    sms_id: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? undefined : v),
      integerField('TS-1052').refine((n) => n > 0, 'TS-1052'),
    ),
  }),
  async handle({ body, caller, services }) {
    const found = await services.status.messageStatus(caller.account.id, body.sms_id);
    if (!found.ok) return found;
    return ok({ code: found.value.code, fields: found.value.fields });
  },
});
