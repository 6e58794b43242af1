import { defineEndpoint } from './endpoint.js';
import { bulkHandler, bulkText, groupSendCommon, groupSendRequest, maxBulkNumbers } from './bulk-fields.js';
import { numbersBodyLimit } from './body-limits.js';

/** POST /group/send: one text to up to 50,000 numbers, queued first. */
export const groupSend = defineEndpoint({
  path: '/group/send',
  summary: 'Send one text to up to 50,000 numbers',
  ...groupSendCommon,
  bodyLimit: numbersBodyLimit(maxBulkNumbers),
  request: groupSendRequest(bulkText.optional()),
  handle: bulkHandler('group'),
});
