import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { coded } from './fields.js';
import { bulkHandler, bulkText, groupSendCommon, groupSendRequest, maxBulkNumbers } from './bulk-fields.js';

/** POST /group/sendMixed: text[i] to sentto[i], up to 50,000 pairs, queued first. */
export const groupSendMixed = defineEndpoint({
  path: '/group/sendMixed',
  summary: 'Send its own text to each of up to 50,000 numbers',
  ...groupSendCommon,
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
  request: groupSendRequest(z.array(bulkText, coded('TS-1033')).optional()),
  handle: bulkHandler('mixed'),
});
