import type { Caller } from './auth.js';
import { bulkPriority, chargesOf } from './send-plan.js';
import type { SendService } from './send-service.js';
import type { SendPlan } from './send-plan.js';
import { normaliseNumber, isPlausibleNumber } from '../domain/recipients.js';
import { distinctNumbers, distinctPairs } from '../domain/deferred-recipients.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';
import { countFor, toLineBreaks } from '../domain/sms-count.js';
import type { SmsLang } from '../domain/labels.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

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
  /** Writes that commit with the send (SendPlan.alongside). */
  alongside?: SendPlan['alongside'];
}

export interface BulkReply {
  rapor_id: number;
  total_numbers: number;
  total_sms_cost: number;
  scheduled: boolean;
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
  const list = bulkRecipients(request);
  if (list.numbers.length === 0) return fail('TS-1026', { message: 'sentto has no numbers' });
  if (!(await sends.isApprovedSender(caller.account.id, request.title))) return fail('TS-1028');
  const sharedText = typeof request.texts === 'string' ? toLineBreaks(request.texts) : null;
  const counts = list.numbers.map((recipient, i) => ({
    recipient,
    smsCount: countFor(recipient, list.texts?.[i] ?? sharedText ?? '', request.lang, 'bulk'),
  }));
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
      invalidNumbers: list.numbers.filter((n) => !isPlausibleNumber(n)).length,
      blockedNumbers: request.blockedNumbers ?? 0,
      ...(request.alongside ? { alongside: request.alongside } : {}),
    },
    ({ sendId, totalSms }): BulkReply => ({
      rapor_id: sendId,
      total_numbers: list.numbers.length,
      total_sms_cost: totalSms,
      scheduled: request.scheduledAt !== null,
    }),
  );
  if (!accepted.ok) return accepted;
  return ok(accepted.value as BulkReply);
}
