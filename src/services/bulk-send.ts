import type { Caller } from './auth.js';
import { bulkPriority, chargesOf } from './send-plan.js';
import type { SendService } from './send-service.js';
import type { SendPlan } from './send-plan.js';
import { normaliseNumber, isPlausibleNumber } from '../domain/recipients.js';
import { distinctNumbers, distinctPairs } from '../domain/deferred-recipients.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';
import { countFor, toLineBreaks } from '../domain/sms-count.js';
import { withStandInLinks } from '../domain/short-links.js';
import type { SmsLang } from '../domain/labels.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { orderForFilter, splitByConsent } from '../domain/iys.js';
import type { CommercialTally, RecipientType } from '../domain/iys.js';
import { refusedText } from './single-send.js';

export interface BulkRequest {
  kind: 'group' | 'mixed';
  title: string;
  lang: SmsLang;
  numbers: readonly string[];
  /** One text for all (group) or one per number (mixed), as sent. */
  texts: string | readonly string[];
  scheduledAt: number | null;
  /** Numbers left out because the account blocked them (panel sends only; the API does not apply the list). */
  blockedNumbers?: number;
  /** The recipient type of a commercial send (İYS), sent only to recipients with consent; null or absent: not commercial. */
  commercial?: RecipientType | null;
  /** Writes that commit with the send (SendPlan.alongside). */
  alongside?: SendPlan['alongside'];
  /**
   * `short_links` 1: the base its URLs become links under, as its messages are written out
   * (ShortLinkService.later, which checked the texts); charged for the texts with their links.
   */
  shortLinks?: string;
  /** The send's window, speed and validity, when the request named some (SendPlan.controls). */
  controls?: SendPlan['controls'];
  /** The account's defaults do not apply (SendPlan.withoutDefaults). */
  withoutDefaults?: boolean;
}

export interface BulkReply {
  rapor_id: number;
  total_numbers: number;
  total_sms_cost: number;
  scheduled: boolean;
  /** A commercial send's recipients left out for want of consent (İYS). */
  iys_skipped?: number;
}

/** The recipients of a bulk send after conversion and de-duplication. */
export function bulkRecipients(request: Pick<BulkRequest, 'numbers' | 'texts'>): DeferredRecipients {
  const numbers = request.numbers.map(normaliseNumber);
  if (typeof request.texts === 'string')
    return { numbers: distinctNumbers(numbers.filter((n) => n !== '')), texts: null };
  const texts = request.texts.map(toLineBreaks);
  const kept = numbers.map((n, i) => ({ n, t: texts[i] ?? '' })).filter((p) => p.n !== '');
  return distinctPairs(
    kept.map((p) => p.n),
    kept.map((p) => p.t),
  );
}

/**
 * /group/send and /group/sendMixed: queued first. The response means the send is stored
 * and charged; its messages are written out and dispatched afterwards, behind interactive
 * sends in the queue.
 */
export async function bulkSend(sends: SendService, caller: Caller, request: BulkRequest): Promise<Result<BulkReply>> {
  const given = bulkRecipients(request);
  if (given.numbers.length === 0) return fail('TS-1026', { message: 'sentto has no numbers' });
  if (!(await sends.isApprovedSender(caller.account.id, request.title))) return fail('TS-1028');
  const type = request.commercial ?? null;
  if (type !== null) {
    const texts = typeof request.texts === 'string' ? [request.texts] : request.texts;
    const refused = await refusedText(sends, caller.account.id, request.title, texts.map(toLineBreaks));
    if (refused) return refused;
  }
  const filtered = type === null ? null : await filterByConsent(sends, caller.account.id, type, given);
  const links = request.shortLinks;
  const list: DeferredRecipients = { ...(filtered?.list ?? given), ...(links === undefined ? {} : { links }) };
  const sentCount = filtered?.sentCount ?? list.numbers.length;
  const sharedText = typeof request.texts === 'string' ? toLineBreaks(request.texts) : null;
  // Each text as it goes out: with short links, as long as they will be.
  const sent = (text: string): string => (links === undefined ? text : withStandInLinks(text, links));
  const sharedSent = sent(sharedText ?? '');
  const counts = list.numbers.slice(0, sentCount).map((recipient, i) => {
    const text = list.texts?.[i];
    return {
      recipient,
      smsCount: countFor(recipient, text === undefined ? sharedSent : sent(text), request.lang, 'bulk'),
    };
  });
  const accepted = await sends.accept(
    caller,
    {
      kind: request.kind,
      sender: request.title,
      text: sharedText,
      lang: request.lang,
      contentType: 0,
      scheduledAt: request.scheduledAt,
      priority: bulkPriority,
      recipients: { later: list, charges: chargesOf(counts) },
      invalidNumbers: list.numbers.slice(0, sentCount).filter((n) => !isPlausibleNumber(n)).length,
      blockedNumbers: request.blockedNumbers ?? 0,
      ...(filtered ? { iys: filtered.tally } : {}),
      ...(request.alongside ? { alongside: request.alongside } : {}),
      ...(request.controls ? { controls: request.controls } : {}),
      ...(request.withoutDefaults === true ? { withoutDefaults: true } : {}),
    },
    ({ sendId, totalSms }): BulkReply => ({
      rapor_id: sendId,
      total_numbers: list.numbers.length,
      total_sms_cost: totalSms,
      scheduled: request.scheduledAt !== null,
      ...(filtered ? { iys_skipped: list.numbers.length - sentCount } : {}),
    }),
  );
  if (!accepted.ok) return accepted;
  return ok(accepted.value as BulkReply);
}

/**
 * A commercial send's list in the order its send records (src/domain/iys.ts,
 * orderForFilter): the recipients with consent first, to be sent and charged; the others
 * last, written out as failed, uncharged messages.
 */
async function filterByConsent(
  sends: SendService,
  accountId: number,
  type: RecipientType,
  list: DeferredRecipients,
): Promise<{ list: DeferredRecipients; sentCount: number; tally: CommercialTally }> {
  const split = splitByConsent(await sends.consentStatuses(accountId, type, list.numbers));
  const numbers = orderForFilter(list.numbers, split, type);
  const texts = list.texts ? orderForFilter(list.texts, split, type).ordered : null;
  return { list: { numbers: numbers.ordered, texts }, sentCount: numbers.sentCount, tally: numbers.tally };
}
