import { z } from 'zod';
import { commonStatuses, defineEndpoint, smsSendKey } from './endpoint.js';
import { otpSendReply } from './replies.js';
import { langField, numberText, otpGuardStatuses, otpValidityField } from './fields.js';
import { otpMobile } from '../domain/recipients.js';
import { otpDigits } from '../domain/otp.js';
import type { SmsLang } from '../domain/labels.js';
import { ok } from '../domain/result.js';

/** Field order is check order: mobile (TS-1025, TS-1034), then sms_lang and validity (TS-1033). */
const request = z.preprocess(
  // `lang` is the old name of `sms_lang` (spec, Versioning); `sms_lang` wins when both are sent.
  (body) =>
    typeof body === 'object' && body !== null && !('sms_lang' in body) && 'lang' in body
      ? { ...body, sms_lang: (body as { lang: unknown }).lang }
      : body,
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
  envelope: 'result',
  key: smsSendKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['send_otp'],
  limited: true,
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1025': 400,
    'TS-1050': 401,
    'TS-1034': 403,
    'TS-1031': 403,
    'TS-1036': 403,
    'TS-1030': 403,
    'TS-1027': 403,
    'TS-5000': 403,
    ...otpGuardStatuses,
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
    return sent.ok ? ok({ code: 'TS-1024', fields: { ...sent.value } }) : sent;
  },
});
