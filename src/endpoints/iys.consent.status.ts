import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { iysConsentStatusReply } from './replies.js';
import { numberText } from './fields.js';
import { iysCommon, recipientTypeField } from './iys-fields.js';
import { fail, ok } from '../domain/result.js';

/** POST /iys/consent/status: the consent in force for one recipient and type. */
export const iysConsentStatus = defineEndpoint({
  path: '/iys/consent/status',
  summary: 'The consent in force for a recipient (ONAY, RET or NONE)',
  reply: iysConsentStatusReply,
  ...iysCommon,
  request: z.object({ recipient: numberText, recipient_type: recipientTypeField.optional() }),
  async handle({ body, caller, services }) {
    const type = body.recipient_type ?? 'BIREYSEL';
    const found = await services.consents.status(caller.account.id, body.recipient, type);
    if (!found) return fail('TS-1025', { message: 'recipient must be a Türkiye mobile number' });
    return ok({ code: 'TS-1064', fields: { ...found, recipient_type: type } });
  },
});
