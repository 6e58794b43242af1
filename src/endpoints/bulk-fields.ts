import { z } from 'zod';
import { coded, codedDetail, fieldAlias, integerField, storableText, unstorableText } from './fields.js';
import { answered, commonStatuses } from './endpoint.js';
import type { HandlerContext, Reply, StatusMap } from './endpoint.js';
import { bulkRecipients, bulkSend } from '../services/bulk-send.js';
import type { Caller } from '../services/auth.js';
import type { Services } from '../services/services.js';
import { commercialFields, commercialType } from './iys-fields.js';
import { bulkSendReply } from './replies.js';
import { sendControlFields } from './send-control-fields.js';
import { oneTextSource, sendTemplateIdField, shortLinksField } from './template-fields.js';
import type { SmsLang } from '../domain/labels.js';
import { textTooLong, toLineBreaks } from '../domain/sms-count.js';
import { shaped, shapedTexts } from './template-sends.js';
import { parseSchedule } from '../domain/schedule.js';
import { requestedControls } from '../domain/send-controls.js';
import type { SendControlBody } from '../domain/send-controls.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

/** Items per /group/send or /group/sendMixed request. */
export const maxBulkNumbers = 50_000;

/** The spec's error table rows shared by /group/send and /group/sendMixed. */
export const groupStatuses: StatusMap = {
  ...commonStatuses,
  'TS-1033': 400,
  'TS-1025': 400,
  'TS-1029': 400,
  'TS-1026': 400,
  'TS-1060': 400,
  'TS-1070': 400,
  'TS-1071': 400,
  'TS-1072': 400,
  'TS-1031': 403,
  'TS-1067': 403,
  'TS-1030': 403,
  'TS-1028': 403,
  'TS-1027': 403,
  'TS-1160': 400,
};

/** What /group/send and /group/sendMixed declare alike: answers, envelope, key rule, codes, permission. */
export const groupSendCommon = {
  reply: bulkSendReply,
  envelope: 'result',
  key: { min: 30, max: 128, missing: 'TS-1025', malformed: 'TS-1025' },
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['send_group_sms'],
  limited: true,
  statuses: groupStatuses,
} as const;

/** The title of a bulk send: missing, empty or unstorable is TS-1029. */
export const bulkTitle = z.string(coded('TS-1029')).min(1, 'TS-1029').superRefine(storableText('TS-1029', 'title'));

/** `sentto` may also be sent as `numbers`. */
const withNumbersAlias = fieldAlias('sentto', 'numbers');

const isNumberLike = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/** A JSON array only (comma-separated text is not accepted), of at most 50,000 items. */
export const numbersField = z
  .array(z.unknown(), coded('TS-1026'))
  .max(maxBulkNumbers, 'TS-1060')
  .refine((items) => items.every(isNumberLike), 'TS-1026')
  .superRefine((items, ctx) => {
    // Invalid numbers are stored and reported as sent, so an item must be storable text.
    for (const item of items) {
      const reason = typeof item === 'string' ? unstorableText(item) : null;
      if (reason === null) continue;
      ctx.addIssue({ code: 'custom', ...codedDetail('TS-1026', `sentto contains ${reason}`) });
      return;
    }
  })
  .transform((items) => items.map((v) => String(v)));

/** One text: empty, of the wrong type or unstorable is TS-1033, over 2,000 characters TS-1026. */
export const bulkText = z
  .string(coded('TS-1033'))
  .refine((t) => t.trim() !== '', 'TS-1033')
  .refine((t) => !textTooLong(t), 'TS-1026')
  .superRefine(storableText('TS-1033', 'text'));

export const scheduleFields = {
  sms_lang: integerField('TS-1033')
    .refine((v) => v >= 0 && v <= 2, 'TS-1033')
    .optional(),
  scheduled_sms: integerField('TS-1033')
    .refine((v) => v === 0 || v === 1, 'TS-1033')
    .optional(),
  scheduled_date: z.string(coded('TS-1070')).optional(),
  scheduled_time: z.string(coded('TS-1071')).optional(),
};

/**
 * A group send's body, `text` as the endpoint takes it (one, or one per number): `numbers`
 * taken for `sentto`, its text from `text` or `template_id` (exactly one).
 */
export function groupSendRequest<Text extends z.ZodTypeAny>(text: Text) {
  return z.preprocess(
    withNumbersAlias,
    z
      .object({
        title: bulkTitle,
        sentto: numbersField,
        text,
        template_id: sendTemplateIdField,
        short_links: shortLinksField,
        ...scheduleFields,
        ...commercialFields,
        ...sendControlFields,
      })
      .superRefine(oneTextSource('TS-1033'))
      .refine(textsMatchNumbers, 'TS-1033'),
  );
}

/** Texts given one per number are as many as the numbers (one text stands for them all). */
function textsMatchNumbers(body: { text?: unknown; sentto: readonly string[] }): boolean {
  return !Array.isArray(body.text) || body.text.length === body.sentto.length;
}

/**
 * `scheduled_sms` = 1 schedules the send at `scheduled_date` + `scheduled_time`. The date
 * and time are sent only with it: sent without it they are refused (TS-1033) rather than
 * ignored, so a forgotten flag never turns a scheduled campaign into an immediate one.
 */
export function bulkSchedule(
  body: { scheduled_sms?: number; scheduled_date?: string; scheduled_time?: string },
  now: number,
): Result<number | null> {
  if (body.scheduled_sms === 1) return parseSchedule({ date: body.scheduled_date, time: body.scheduled_time }, now);
  const dated = (body.scheduled_date ?? '') !== '' || (body.scheduled_time ?? '') !== '';
  if (dated)
    return fail('TS-1033', { message: 'scheduled_date and scheduled_time are sent only with scheduled_sms=1' });
  return ok(null);
}

/** The handler of both bulk endpoints: schedule, then the bulk send use case. */
export function bulkHandler(kind: 'group' | 'mixed') {
  return async ({ body, caller, services }: HandlerContext<BulkBody>): Promise<Result<Reply>> => {
    const schedule = bulkSchedule(body, services.clock.now());
    if (!schedule.ok) return schedule;
    const given = await givenTexts(body, caller, services);
    if (!given.ok) return given;
    const sent = await bulkSend(services.sends, caller, {
      kind,
      title: body.title,
      lang: (body.sms_lang ?? 2) as SmsLang,
      numbers: given.value.numbers,
      texts: given.value.texts,
      ...(given.value.shortLinks === undefined ? {} : { shortLinks: given.value.shortLinks }),
      scheduledAt: schedule.value,
      commercial: commercialType(body),
      ...requestedControls(body),
    });
    return answered('TS-1024', sent);
  };
}

/**
 * The numbers and texts of a bulk send as sent, or, when it names `template_id`, its
 * distinct numbers and the template filled for each (one text when it has no placeholder).
 */
async function givenTexts(
  body: BulkBody,
  caller: Caller,
  services: Services,
): Promise<Result<{ numbers: readonly string[]; texts: string | readonly string[]; shortLinks?: string }>> {
  if (!shaped(body)) return ok({ numbers: body.sentto, texts: body.text ?? '' });
  if (body.template_id === undefined) {
    // Short links alone: the texts as sent, checked for their links; the send makes its list
    // once, and its messages their links as they are written out.
    const texts = body.text ?? '';
    const base = services.links.later(typeof texts === 'string' ? toLineBreaks(texts) : texts.map(toLineBreaks));
    return base.ok ? ok({ numbers: body.sentto, texts, shortLinks: base.value }) : base;
  }
  // The list as the send keeps it (normalised, de-duplicated), so each text is its number's.
  const list = bulkRecipients({ numbers: body.sentto, texts: body.text ?? '' });
  if (list.numbers.length === 0) return fail('TS-1026', { message: 'sentto has no numbers' });
  const text = typeof body.text === 'string' ? toLineBreaks(body.text) : (list.texts ?? '');
  const given = await shapedTexts(services, caller, body, list.numbers, text, true);
  if (!given.ok) return given;
  return ok({
    numbers: list.numbers,
    texts: given.value.texts ?? given.value.text,
    ...(given.value.shortLinks === undefined ? {} : { shortLinks: given.value.shortLinks }),
  });
}

interface BulkBody extends SendControlBody {
  title: string;
  sentto: string[];
  text?: string | string[];
  template_id?: number;
  short_links?: number;
  sms_lang?: number;
  scheduled_sms?: number;
  scheduled_date?: string;
  scheduled_time?: string;
  iys?: number;
  iys_recipient_type?: 'BIREYSEL' | 'TACIR';
}
