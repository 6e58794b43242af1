import { z } from 'zod';
import { commonStatuses, defineEndpoint, smsSendRules } from './endpoint.js';
import { smsSendReply } from './replies.js';
import { numbersBodyLimit } from './body-limits.js';
import { coded, codedDetail, fieldAlias, integerField, numberText, storableText } from './fields.js';
import { firstNonNumber, numberFieldTooShort, quotedEntry } from '../domain/recipients.js';
import { titleTooLong } from '../domain/sender-title.js';
import { textTooLong } from '../domain/sms-count.js';
import { maxScheduledRecipients, singleSend } from '../services/single-send.js';
import type { SingleSendOptions } from '../services/single-send.js';
import { commercialFields } from './iys-fields.js';
import { sendControlFields } from './send-control-fields.js';
import { oneTextSource, sendTemplateIdField, shortLinksField } from './template-fields.js';
import { shaped, shapedSingleSend } from './template-sends.js';

/**
 * One entry that cannot be a phone number refuses the whole request (docs/decisions.md):
 * TS-1025, naming the entry, so nothing is sent to part of a list the caller got wrong.
 */
function everyEntryANumber(sentto: string, ctx: z.RefinementCtx): void {
  const bad = firstNonNumber(sentto);
  if (bad !== null)
    ctx.addIssue({
      code: 'custom',
      ...codedDetail('TS-1025', `sentto entry ${quotedEntry(bad)} is not a phone number`),
    });
}

/** Field order is check order (docs/decisions.md): the first failing field answers. */
const request = z.preprocess(
  // `mobile` is accepted for `sentto`: the provider's published client libraries send it.
  fieldAlias('sentto', 'mobile'),
  z
    .object({
      sentto: numberText
        .refine((s) => !numberFieldTooShort(s), 'TS-1025')
        .superRefine(storableText('TS-1025', 'sentto'))
        .superRefine(everyEntryANumber),
      title: z
        .string(coded('TS-1051'))
        .min(1, 'TS-1051')
        .refine((t) => !titleTooLong(t), 'TS-1029')
        .superRefine(storableText('TS-1029', 'title')),
      text: z
        .string(coded('TS-1026'))
        .refine((t) => t.trim() !== '', 'TS-1026')
        .refine((t) => !textTooLong(t), 'TS-1026')
        .superRefine(storableText('TS-1026', 'text'))
        .optional(),
      template_id: sendTemplateIdField,
      short_links: shortLinksField,
      sms_lang: integerField('TS-1033')
        .refine((v) => v >= 0 && v <= 2, 'TS-1033')
        .optional(),
      content_type: integerField('TS-1033')
        .refine((v) => v >= 0 && v <= 2, 'TS-1033')
        .optional(),
      scheduled_date: z.string(coded('TS-1070')).optional(),
      scheduled_time: z.string(coded('TS-1071')).optional(),
      idempotency_key: z
        .string(coded('TS-1033'))
        .min(1, 'TS-1033')
        .max(255, 'TS-1033')
        .superRefine(storableText('TS-1033', 'idempotency_key'))
        .optional(),
      ...commercialFields,
      ...sendControlFields,
    })
    .superRefine(oneTextSource('TS-1026')),
);

/** What /sms/send and /sms/cancel declare alike: envelope, key rule, permissions (/sms/cancel takes /sms/send's). */
export const smsSendCommon = {
  ...smsSendRules,
  permissions: ['post_request', 'send_single_sms'],
} as const;

/** POST /sms/send: one text to one or more numbers, now or at a scheduled time. */
export const smsSend = defineEndpoint({
  path: '/sms/send',
  summary: 'Send one text to up to 500 numbers (50,000 when scheduled)',
  reply: smsSendReply,
  ...smsSendCommon,
  // A scheduled send's 50,000 numbers in their longest form.
  bodyLimit: numbersBodyLimit(maxScheduledRecipients),
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1025': 400,
    'TS-1051': 400,
    'TS-1029': 400,
    'TS-1026': 400,
    'TS-1060': 400,
    'TS-1060:per-minute': 429,
    'TS-1028': 400,
    'TS-1070': 400,
    'TS-1071': 400,
    'TS-1072': 400,
    'TS-1050': 401,
    'TS-1031': 401,
    'TS-1061': 403,
    'TS-1062': 403,
    'TS-1030': 403,
    'TS-1027': 403,
    'TS-1160': 400,
  },
  request,
  // One call: the use case answers TS-1024 with its reply, or the code that refused it.
  handle: ({ body, caller, services }) =>
    shaped(body) ? shapedSingleSend(services, caller, body) : singleSend(services.sends, services.clock, caller, body),
});

/**
 * /sms/send as the SMPP server runs a submit_sm: the same fields, checks, limits and use case,
 * but a scheduled send's message is written at acceptance (queued, due at its time) and
 * `sms_id` is its own id, so submit_sm_resp, the receipt and query_sm carry the message's id
 * (docs/decisions.md, "Customers over SMPP"). `alongside`: the receipts the submit owes,
 * written in the transaction that accepts it (docs/decisions.md, "One outbox"). Not a route:
 * the HTTP API keeps `smsSend`.
 */
export function smsSendOverSmpp(alongside?: SingleSendOptions['alongside']) {
  return defineEndpoint({
    ...smsSend,
    handle: ({ body, caller, services }) =>
      singleSend(services.sends, services.clock, caller, body, {
        scheduledMessagesNow: true,
        ...(alongside ? { alongside } : {}),
      }),
  });
}
