import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { bulkSendReply } from './replies.js';
import {
  bulkHandler,
  bulkText,
  bulkTitle,
  groupStatuses,
  maxBulkNumbers,
  numbersField,
  scheduleFields,
  withNumbersAlias,
} from './bulk-fields.js';
import { numbersBodyLimit } from './body-limits.js';
import { commercialFields } from './iys-fields.js';
import { sendControlFields } from './send-control-fields.js';
import { oneTextSource, sendTemplateIdField, shortLinksField } from './template-fields.js';

/** POST /group/send: one text to up to 50,000 numbers, queued first. */
export const groupSend = defineEndpoint({
  path: '/group/send',
  summary: 'Send one text to up to 50,000 numbers',
  reply: bulkSendReply,
  envelope: 'result',
  key: { min: 30, max: 128, missing: 'TS-1025', malformed: 'TS-1025' },
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['send_group_sms'],
  limited: true,
  statuses: groupStatuses,
  bodyLimit: numbersBodyLimit(maxBulkNumbers),
  request: z.preprocess(
    withNumbersAlias,
    z
      .object({
        title: bulkTitle,
        sentto: numbersField,
        text: bulkText.optional(),
        template_id: sendTemplateIdField,
        short_links: shortLinksField,
        ...scheduleFields,
        ...commercialFields,
        ...sendControlFields,
      })
      .superRefine(oneTextSource('TS-1033')),
  ),
  handle: bulkHandler('group'),
});
