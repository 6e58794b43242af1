import { z } from 'zod';
import { commonStatuses, defineEndpoint } from './endpoint.js';
import { smsSendReply } from './replies.js';
import { numbersBodyLimit } from './body-limits.js';
import { coded, codedDetail, integerField, numberText, storableText } from './fields.js';
import { firstNonNumber, numberFieldTooShort, quotedEntry, splitRecipients } from '../domain/recipients.js';
import { titleTooLong } from '../domain/sender-title.js';
import { countFor, textTooLong, toLineBreaks } from '../domain/sms-count.js';
import { contentTypeLabel, countryLabel, smsLangLabel } from '../domain/labels.js';
import type { ContentType, SmsLang } from '../domain/labels.js';
import { parseSchedule, scheduleRequested } from '../domain/schedule.js';
import { fail, ok } from '../domain/result.js';
import { chargesOf, interactivePriority, messagesFor, requestHash } from '../services/send-service.js';

/** Recipients per request: 500 distinct numbers, 50,000 for a scheduled send. */
export const maxRecipients = 500;
export const maxScheduledRecipients = 50_000;

/**
 * One entry that cannot be a phone number refuses the whole request (docs/decisions.md):
 * TS-1025, naming the entry, so nothing is sent to part of a list the caller got wrong.
 */
function everyEntryANumber(sentto: string, ctx: z.RefinementCtx): void {
  const bad = firstNonNumber(sentto);
  if (bad !== null) ctx.addIssue({ code: 'custom', ...codedDetail('TS-1025', `sentto entry ${quotedEntry(bad)} is not a phone number`) });
}

/** Field order is check order (docs/decisions.md): the first failing field answers. */
const request = z.preprocess(
  // `mobile` is accepted for `sentto`: the provider's published client libraries send it.
  (body) => (typeof body === 'object' && body !== null && !('sentto' in body) && 'mobile' in body ? { ...body, sentto: (body as { mobile: unknown }).mobile } : body),
  z.object({
    sentto: numberText.refine((s) => !numberFieldTooShort(s), 'TS-1025').superRefine(storableText('TS-1025', 'sentto')).superRefine(everyEntryANumber),
    title: z
      .string(coded('TS-1051'))
      .min(1, 'TS-1051')
      .refine((t) => !titleTooLong(t), 'TS-1029')
      .superRefine(storableText('TS-1029', 'title')),
    text: z
      .string(coded('TS-1026'))
      .refine((t) => t.trim() !== '', 'TS-1026')
      .refine((t) => !textTooLong(t), 'TS-1026')
      .superRefine(storableText('TS-1026', 'text')),
    sms_lang: integerField('TS-1033')
      .refine((v) => v >= 0 && v <= 2, 'TS-1033')
      .optional(),
    content_type: integerField('TS-1033')
      .refine((v) => v >= 0 && v <= 2, 'TS-1033')
      .optional(),
    scheduled_date: z.string(coded('TS-1070')).optional(),
    scheduled_time: z.string(coded('TS-1071')).optional(),
    idempotency_key: z.string(coded('TS-1033')).min(1, 'TS-1033').max(255, 'TS-1033').superRefine(storableText('TS-1033', 'idempotency_key')).optional(),
  }),
);

/** POST /sms/send: one text to one or more numbers, now or at a scheduled time. */
export const smsSend = defineEndpoint({
  path: '/sms/send',
  summary: 'Send one text to up to 500 numbers (50,000 when scheduled)',
  reply: smsSendReply,
  envelope: 'result',
  key: { min: 30, max: 128, missing: 'TS-1050', malformed: 'TS-1050' },
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['post_request', 'send_single_sms'],
  limited: true,
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
  },
  request,
  async handle({ body, caller, services }) {
    const sends = services.sends;
    const lang = (body.sms_lang ?? 2) as SmsLang;
    const contentType = (body.content_type ?? 0) as ContentType;
    let scheduledAt: number | null = null;
    if (scheduleRequested(body.scheduled_date)) {
      const parsed = parseSchedule({ date: body.scheduled_date, time: body.scheduled_time }, services.clock.now());
      if (!parsed.ok) return parsed;
      scheduledAt = parsed.value;
    }
    const { numbers } = splitRecipients(body.sentto);
    if (numbers.length === 0) return fail('TS-1025');
    const limit = scheduledAt === null ? maxRecipients : maxScheduledRecipients;
    if (numbers.length > limit) return fail('TS-1060', { message: `At most ${limit} distinct numbers per request` });
    if (!(await sends.isApprovedSender(caller.account.id, body.title))) return fail('TS-1028');

    const { api_key: _key, ...rest } = body as typeof body & { api_key?: unknown };
    const idempotency = body.idempotency_key === undefined ? undefined : { key: body.idempotency_key, hash: requestHash(rest) };
    if (idempotency) {
      const replayed = await sends.replay(caller, idempotency.key, idempotency.hash);
      if (replayed && !replayed.ok) return replayed;
      if (replayed?.ok) return ok({ code: 'TS-1024', fields: JSON.parse(replayed.value) as Record<string, unknown> });
    }

    const limited = await sends.perMinuteCheck(caller, numbers.length);
    if (limited) return limited;

    const text = toLineBreaks(body.text);
    const accepted = await sends.accept(
      caller,
      { kind: 'sms', sender: body.title, text, lang, contentType, scheduledAt, priority: interactivePriority,
        // A scheduled send's list waits until its time: no messages (nor report rows) before.
        recipients: scheduledAt === null ? { now: messagesFor(numbers, text, lang, 'single') } : { later: { numbers, texts: null }, charges: chargesOf(numbers.map((n) => ({ recipient: n, smsCount: countFor(n, text, lang, 'single') }))) },
        perMinuteLimited: true,
      },
      ({ sendId, messageIds, totalSms }) => ({
        sms_id: scheduledAt === null ? (messageIds[messageIds.length - 1] ?? sendId) : sendId,
        number_of_sms: totalSms,
        total_recipients: numbers.length,
        success_count: numbers.length,
        sms_lang: smsLangLabel(lang),
        content_type: contentTypeLabel(contentType),
        country: countryLabel(numbers[0] ?? ''),
      }),
      idempotency,
    );
    if (!accepted.ok) return accepted;
    return ok({ code: 'TS-1024', fields: accepted.value as Record<string, unknown> });
  },
});
