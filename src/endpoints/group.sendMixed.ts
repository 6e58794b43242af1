import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { bulkSendReply } from './replies.js';
import { coded } from './fields.js';
import { commercialFields } from './iys-fields.js';
import { sendControlFields } from './send-control-fields.js';
import { oneTextSource, sendTemplateIdField, shortLinksField } from './template-fields.js';
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

/** POST /group/sendMixed: text[i] to sentto[i], up to 50,000 pairs, queued first. */
export const groupSendMixed = defineEndpoint({
  path: '/group/sendMixed',
  summary: 'Send its own text to each of up to 50,000 numbers',
  reply: bulkSendReply,
  envelope: 'result',
  key: { min: 30, max: 128, missing: 'TS-1025', malformed: 'TS-1025' },
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['send_group_sms'],
  limited: true,
  statuses: groupStatuses,
  // The spec's maxima: 50,000 texts of 2,000 characters, two bytes each in UTF-8 (Turkish,
  // Arabic), plus the numbers: about 200 MB. Larger bodies are refused before parsing.
  bodyLimit: 256 * 1024 * 1024,
  // One item over the 50,000 is kept, so the count rule answers TS-1060; texts are cut off
  // well past their 2,000 characters, so their own rule answers for 2,001.
  streamedBody: {
    maxArrayItems: maxBulkNumbers,
    maxStringLength: 4 * 2000,
    maxKeys: 32,
    fieldCodes: { sentto: 'TS-1026', numbers: 'TS-1026' },
  },
  request: z.preprocess(
    withNumbersAlias,
    z
      .object({
        title: bulkTitle,
        sentto: numbersField,
        text: z.array(bulkText, coded('TS-1033')).optional(),
        template_id: sendTemplateIdField,
        short_links: shortLinksField,
        ...scheduleFields,
        ...commercialFields,
        ...sendControlFields,
      })
      .superRefine(oneTextSource('TS-1033'))
      .refine((b) => b.text === undefined || b.text.length === b.sentto.length, 'TS-1033'),
  ),
  handle: bulkHandler('mixed'),
});
