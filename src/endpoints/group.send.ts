import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import {
  bulkHandler,
  bulkText,
  groupSendCommon,
  groupSendFields,
  maxBulkNumbers,
  withNumbersAlias,
} from './bulk-fields.js';
import { numbersBodyLimit } from './body-limits.js';
import { oneTextSource } from './template-fields.js';

/** POST /group/send: one text to up to 50,000 numbers, queued first. */
export const groupSend = defineEndpoint({
  path: '/group/send',
  summary: 'Send one text to up to 50,000 numbers',
  ...groupSendCommon,
  bodyLimit: numbersBodyLimit(maxBulkNumbers),
  request: z.preprocess(
    withNumbersAlias,
    z.object(groupSendFields(bulkText.optional())).superRefine(oneTextSource('TS-1033')),
  ),
  handle: bulkHandler('group'),
});
