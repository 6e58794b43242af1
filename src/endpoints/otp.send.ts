import { z } from 'zod';
import { answered, commonStatuses, defineEndpoint, smsSendRules } from './endpoint.js';
import { otpSendReply } from './replies.js';
import { fieldAlias, langField, numberText, otpSendStatuses, otpValidityField } from './fields.js';
import { otpMobile } from '../domain/recipients.js';
import { otpDigits } from '../domain/otp.js';
import type { SmsLang } from '../domain/labels.js';

/** Field order is check order: mobile (TS-1025, TS-1034), then sms_lang and validity (TS-1033). */
const request = z.preprocess(
  // `lang` is the old name of `sms_lang` (spec, Versioning); `sms_lang` wins when both are sent.
  fieldAlias('sms_lang', 'lang'),
  z.object({
    mobile: numberText.transform((raw, ctx) => {
      const number = otpMobile(raw);
      if (number.ok) return number.value;
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: number.code });
      return z.NEVER;
    }),
    // Any value but the integers 4, 5 and 6 gives 4: never a failure.
    digits: z.unknown().optional().transform(otpDigits),
    sms_lang: langField.optional(),
    validity: otpValidityField.optional(),
  }),
);

/** POST /otp/send: a generated code to one number, in the fixed template, from OTPSMS. */
export const otpSend = defineEndpoint({
  path: '/otp/send',
  summary: 'Send a generated one-time code to one number with the fixed template',
  reply: otpSendReply,
  ...smsSendRules,
  permissions: ['send_otp'],
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1025': 400,
    'TS-1050': 401,
    'TS-1034': 403,
    'TS-1036': 403,
    ...otpSendStatuses,
  },
  request,
  async handle({ body, caller, services }) {
    const sent = await services.otp.send(
      caller,
      body.mobile,
      body.digits,
      (body.sms_lang ?? 2) as SmsLang,
      body.validity,
    );
    return answered('TS-1024', sent);
  },
});
