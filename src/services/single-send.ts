import { createHash } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { Caller } from './auth.js';
import type { SendService } from './send-service.js';
import { chargesOf, messagesFor } from './send-plan.js';
import { priorityOf, smsSendLane } from '../domain/lanes.js';
import type { SendPlan } from './send-plan.js';
import { leaveOut, orderForFilter, splitByConsent } from '../domain/iys.js';
import type { CommercialTally, ConsentSplit, RecipientType } from '../domain/iys.js';
import { splitRecipients } from '../domain/recipients.js';
import { countFor, toLineBreaks } from '../domain/sms-count.js';
import { contentTypeLabel, countryLabel, smsLangLabel } from '../domain/labels.js';
import type { ContentType, SmsLang } from '../domain/labels.js';
import { parseSchedule, scheduleRequested } from '../domain/schedule.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { TemplateTexts } from './template-service.js';
import type { SendWindow } from '../domain/send-controls.js';
import { requestedControls } from '../domain/send-controls.js';

/** Recipients per request: 500 distinct numbers, 50,000 for a scheduled send. */
export const maxRecipients = 500;
export const maxScheduledRecipients = 50_000;

/**
 * A /sms/send request once its fields are valid, under their names on the wire: its JSON is
 * the fingerprint an idempotency key is bound to, so it is taken as it was sent, not
 * renamed (a fingerprint that changed would refuse every retry across an upgrade).
 */
export interface SingleSendRequest {
  sentto: string;
  title: string;
  /** Absent when `template_id` names the text. */
  text?: string;
  /** The account's template, filled per number from the contacts' fields (docs/api.md, "Templates"). */
  template_id?: number;
  sms_lang?: number;
  content_type?: number;
  scheduled_date?: string;
  scheduled_time?: string;
  idempotency_key?: string;
  /** 1: a commercial message, sent only to recipients with consent (İYS). */
  iys?: number;
  iys_recipient_type?: RecipientType;
  /** The send's window, speed and validity (docs/api.md, "Send window, speed and validity"). */
  send_window?: SendWindow | undefined;
  speed?: number | undefined;
  validity_minutes?: number | undefined;
}

/** The answer to an accepted (or replayed) send: TS-1024 and the reply stored for replays. */
export type SingleSent = { code: 'TS-1024'; fields: Record<string, unknown> };

export function requestHash(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex');
}

/** How a send path other than HTTP's asks singleSend for what HTTP does not offer. */
export interface SingleSendOptions {
  /**
   * A scheduled send's messages are written at acceptance, queued until its time, instead of
   * kept as a list until then, and `sms_id` is the (last) message's id rather than the report
   * id: the SMPP server answers a scheduled submit_sm with the message's own id, which its
   * receipt and query_sm carry (docs/decisions.md, "Customers over SMPP").
   */
  scheduledMessagesNow?: boolean;
  /**
   * The texts of a send that names a template (`template_id`) or asks for short links, for
   * its numbers: asked once the numbers are known, after an idempotent replay. Absent, the
   * request's `text` is sent.
   */
  texts?: (numbers: readonly string[]) => Promise<Result<GivenTexts>>;
  /**
   * Writes that commit with the send (SendPlan.alongside): the SMPP server's receipts owed
   * for the submit, in the transaction that accepts it.
   */
  alongside?: SendPlan['alongside'];
}

type Alongside = NonNullable<SendPlan['alongside']>;

/** The writes that commit with a send: its links' and its caller's (SMPP receipts owed), both when both. */
function alongsideOf(links: Alongside | undefined, caller: Alongside | undefined): { alongside?: Alongside } {
  if (links === undefined) return caller === undefined ? {} : { alongside: caller };
  if (caller === undefined) return { alongside: links };
  return {
    alongside: async (store, sendId, messageIds) => {
      await links(store, sendId, messageIds);
      await caller(store, sendId, messageIds);
    },
  };
}

/** A send's texts when not simply its `text`: one for all or one per number, and writes that commit with it. */
export type GivenTexts = TemplateTexts & { alongside?: SendPlan['alongside'] };

/**
 * /sms/send: one text to one or more numbers, now or at a scheduled time, in the documented
 * order of checks: schedule, recipients and their count, sender ID, an idempotent replay,
 * the per-minute limit, then the send (balance, in its transaction). An immediate send is
 * written as messages at once; a scheduled one keeps its list until its time, with no
 * messages (nor report rows) before (unless `options.scheduledMessagesNow`).
 */
export async function singleSend(
  sends: SendService,
  clock: Clock,
  caller: Caller,
  request: SingleSendRequest,
  options: SingleSendOptions = {},
): Promise<Result<SingleSent>> {
  const lang = (request.sms_lang ?? 2) as SmsLang;
  const contentType = (request.content_type ?? 0) as ContentType;
  let scheduledAt: number | null = null;
  if (scheduleRequested(request.scheduled_date)) {
    const parsed = parseSchedule({ date: request.scheduled_date, time: request.scheduled_time }, clock.now());
    if (!parsed.ok) return parsed;
    scheduledAt = parsed.value;
  }
  const { numbers } = splitRecipients(request.sentto);
  if (numbers.length === 0) return fail('TS-1025');
  const limit = scheduledAt === null ? maxRecipients : maxScheduledRecipients;
  if (numbers.length > limit) return fail('TS-1060', { message: `At most ${limit} distinct numbers per request` });
  if (!(await sends.isApprovedSender(caller.account.id, request.title))) return fail('TS-1028');

  const idempotency =
    request.idempotency_key === undefined ? undefined : { key: request.idempotency_key, hash: requestHash(request) };
  if (idempotency) {
    const replayed = await sends.replay(caller, idempotency.key, idempotency.hash);
    if (replayed && !replayed.ok) return replayed;
    if (replayed?.ok) return ok({ code: 'TS-1024', fields: JSON.parse(replayed.value) as Record<string, unknown> });
  }

  const filled = options.texts ? await options.texts(numbers) : null;
  if (filled && !filled.ok) return filled;
  const text = filled ? filled.value.text : toLineBreaks(request.text ?? '');
  // One text per number when a template's placeholders were filled; null: `text` for all.
  const texts = filled?.value.texts ?? null;
  const type = request.iys === 1 ? (request.iys_recipient_type ?? 'BIREYSEL') : null;
  if (type !== null) {
    const refused = await refusedText(sends, caller.account.id, request.title, texts ?? [text]);
    if (refused) return refused;
  }

  const limited = await sends.perMinuteCheck(caller, numbers.length);
  if (limited) return limited;

  const split = type === null ? null : splitByConsent(await sends.consentStatuses(caller.account.id, type, numbers));
  // Written as messages now: every immediate send, and a scheduled one when asked (then due at its time).
  const messagesNow = scheduledAt === null || options.scheduledMessagesNow === true;
  const recipients = plannedRecipients(
    { numbers, text, texts, lang },
    messagesNow,
    type === null ? null : { type, split },
  );
  const sentCount = split ? split.sent.length : numbers.length;
  const accepted = await sends.accept(
    caller,
    {
      kind: 'sms',
      sender: request.title,
      text: texts === null ? text : null,
      lang,
      contentType,
      scheduledAt,
      priority: priorityOf(smsSendLane(numbers.length, scheduledAt !== null)),
      recipients: recipients.plan,
      ...(recipients.tally ? { iys: recipients.tally } : {}),
      ...alongsideOf(filled?.value.alongside, options.alongside),
      perMinuteLimited: true,
      ...requestedControls(request),
    },
    ({ sendId, messageIds, totalSms }) => ({
      sms_id: messagesNow ? (messageIds[messageIds.length - 1] ?? sendId) : sendId,
      number_of_sms: totalSms,
      total_recipients: numbers.length,
      success_count: sentCount,
      sms_lang: smsLangLabel(lang),
      content_type: contentTypeLabel(contentType),
      country: countryLabel(numbers[0] ?? ''),
      ...(type === null ? {} : { iys_skipped: numbers.length - sentCount }),
    }),
    idempotency,
  );
  if (!accepted.ok) return accepted;
  return ok({ code: 'TS-1024', fields: accepted.value as Record<string, unknown> });
}

/**
 * The recipients of a /sms/send as its plan writes them: as messages now, or as a list until
 * its time. A commercial send's left-out recipients are failed, uncharged messages: at once
 * in place when written now, the last of the list otherwise (the expander fails them;
 * migration 0024).
 */
function plannedRecipients(
  { numbers, text, texts, lang }: { numbers: readonly string[]; text: string; texts: string[] | null; lang: SmsLang },
  messagesNow: boolean,
  commercial: { type: RecipientType; split: ConsentSplit | null } | null,
): { plan: SendPlan['recipients']; tally: CommercialTally | null } {
  const split = commercial?.split ?? null;
  if (commercial === null || split === null) {
    if (messagesNow) return { plan: { now: messagesOf(numbers, text, texts, lang) }, tally: null };
    return {
      plan: { later: { numbers: [...numbers], texts }, charges: singleCharges(numbers, texts ?? text, lang) },
      tally: null,
    };
  }
  const { type } = commercial;
  if (messagesNow) {
    const now = messagesOf(numbers, text, texts, lang);
    for (const [gap, side] of [
      ['NONE', split.none],
      ['RET', split.ret],
    ] as const)
      for (const index of side) {
        const message = now[index];
        if (message) leaveOut(message, gap, type);
      }
    return { plan: { now }, tally: { type, none: split.none.length, ret: split.ret.length } };
  }
  const ordered = orderForFilter(numbers, split, type);
  const orderedTexts = texts === null ? null : orderForFilter(texts, split, type).ordered;
  return {
    plan: {
      later: { numbers: ordered.ordered, texts: orderedTexts },
      charges: singleCharges(ordered.ordered.slice(0, ordered.sentCount), orderedTexts ?? text, lang),
    },
    tally: ordered.tally,
  };
}

/** `text`: one for every number, or texts[i] for numbers[i] (a filled template). */
function singleCharges(numbers: readonly string[], text: string | readonly string[], lang: SmsLang) {
  return chargesOf(
    numbers.map((n, i) => ({
      recipient: n,
      smsCount: countFor(n, typeof text === 'string' ? text : (text[i] ?? ''), lang, 'single'),
    })),
  );
}

/** The messages written now: one text for all, or each its own (a filled template). */
function messagesOf(numbers: readonly string[], text: string, texts: readonly string[] | null, lang: SmsLang) {
  const now = messagesFor(numbers, text, lang, 'single');
  if (texts !== null)
    now.forEach((m, i) => {
      m.text = texts[i] ?? '';
      m.smsCount = countFor(m.recipient, m.text, lang, 'single');
    });
  return now;
}

/**
 * TS-1160 when a commercial text misses a text rule and the account refuses such texts
 * (`haberci admin iys configure --text-rules refuse`); null otherwise. Checked before
 * anything is counted or charged.
 */
export async function refusedText(
  sends: SendService,
  accountId: number,
  sender: string,
  texts: readonly string[],
): Promise<Result<never> | null> {
  const gaps = await sends.refusedTextGaps(accountId, sender, texts);
  if (gaps.length === 0) return null;
  const lacks = gaps.map((g) =>
    g === 'sender'
      ? 'who sends it (the sender ID or a MERSIS number)'
      : 'how to opt out (a RET word and the number to send it to)',
  );
  return fail('TS-1160', { message: `A commercial text must say ${lacks.join(' and ')}` });
}
