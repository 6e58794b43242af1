import { z } from 'zod';
import { answered, commonStatuses, defineEndpoint, smsSendRules } from './endpoint.js';
import { otpDetailedReply } from './replies.js';
import {
  codedDetail,
  coded,
  langField,
  numberText,
  otpSendStatuses,
  otpValidityField,
  storableText,
} from './fields.js';
import { normaliseNumber, numberFieldTooShort } from '../domain/recipients.js';
import { containsCodeToken, otpDigits } from '../domain/otp.js';
import { isReservedOtpSender, titleTooLong } from '../domain/sender-title.js';
import { textTooLong } from '../domain/sms-count.js';
import type { SmsLang } from '../domain/labels.js';

/**
 * Field order is check order (docs/decisions.md): mobile, title, text, lang; then the
 * approved sender ID and the balance. `sms_lang` is not read here: the field is `lang`.
 */
const request = z.object({
  mobile: numberText.transform((raw, ctx) => {
    const number = normaliseNumber(raw);
    if (numberFieldTooShort(raw)) ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'TS-1025' });
    else if (!/^905\d{9}$/.test(number))
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        ...codedDetail('TS-1034', 'mobile must be a Türkiye mobile number, 905XXXXXXXXX'),
      });
    return number;
  }),
  title: z
    .string(coded('TS-1051'))
    .min(1, 'TS-1051')
    .refine((t) => !titleTooLong(t), 'TS-1029')
    .superRefine(storableText('TS-1029', 'title'))
    .refine((t) => !isReservedOtpSender(t), codedDetail('TS-1028', 'This sender ID is reserved and cannot send OTP')),
  text: z
    .string(coded('TS-1026'))
    .refine((t) => t.trim() !== '', 'TS-1026')
    .refine((t) => !textTooLong(t), 'TS-1026')
    .superRefine(storableText('TS-1026', 'text'))
    .refine(containsCodeToken, codedDetail('TS-1026', 'text must contain TS-CODE (in capitals)')),
  lang: langField.optional(),
  digits: z.unknown().optional().transform(otpDigits),
  validity: otpValidityField.optional(),
});

/** POST /otp/detailed: a generated code in the caller's own text, from an approved sender ID. */
export const otpDetailed = defineEndpoint({
  path: '/otp/detailed',
  summary: 'Send a generated one-time code in your own text from your approved sender ID',
  reply: otpDetailedReply,
  ...smsSendRules,
  permissions: ['post_request', 'send_otp_advanced'],
  // Validation errors 400, account and permission errors 403 (spec); the codes are ours.
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1025': 400,
    'TS-1034': 400,
    'TS-1051': 400,
    'TS-1029': 400,
    'TS-1028': 400,
    'TS-1026': 400,
    // The spec's 401 column is empty here: a missing key is a validation error.
    'TS-1050': 400,
    'TS-1061': 403,
    'TS-1037': 403,
    ...otpSendStatuses,
  },
  request,
  async handle({ body, caller, services }) {
    return answered('TS-1024', await services.otp.sendDetailed(caller, { ...body, lang: (body.lang ?? 2) as SmsLang }));
  },
});
