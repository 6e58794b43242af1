import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { iysConsentAddReply } from './replies.js';
import { coded, codedDetail } from './fields.js';
import { iysCommon } from './iys-fields.js';
import { maxConsentsPerRequest } from '../services/consent-service.js';
import { ok } from '../domain/result.js';

/** POST /iys/consent/add: up to 1,000 consents; each invalid item is an error of its own. */
export const iysConsentAdd = defineEndpoint({
  path: '/iys/consent/add',
  summary: 'Record consents (ONAY) and refusals (RET) for commercial messages (İYS)',
  reply: iysConsentAddReply,
  ...iysCommon,
  bodyLimit: 1024 * 1024,
  request: z.object({
    consents: z
      .array(z.unknown(), coded('TS-1033'))
      .min(1, 'TS-1033')
      .refine(
        (items) => items.length <= maxConsentsPerRequest,
        codedDetail('TS-1060', `At most ${maxConsentsPerRequest} consents per request`),
      ),
  }),
  async handle({ body, caller, services }) {
    const added = await services.consents.add(caller.account.id, body.consents);
    return ok({ code: 'TS-1064', fields: { ...added } });
  },
});
