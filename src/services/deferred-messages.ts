/**
 * The messages of a send's recipients not yet written out, as its list will have them:
 * the expander writes them a chunk at a time (src/jobs/send-expander.ts), a cancel writes
 * the rest at once before cancelling them (src/ports/campaign-controls.ts), so both give
 * the same rows and the same counts of SMS (what the send was charged).
 */
import type { DueExpansion } from '../ports/dispatch-queue.js';
import type { NewMessage } from '../ports/messages.js';
import { decodeRecipients } from '../domain/deferred-recipients.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';
import { countFor } from '../domain/sms-count.js';
import { operatorOf } from '../domain/operators.js';
import { couldBeNumber, isPlausibleNumber } from '../domain/recipients.js';
import { leaveOut } from '../domain/iys.js';
import { LinkWriter } from './short-link-service.js';

export const invalidNumberDetail = 'Invalid number: not sent';
export const notANumberDetail = 'Not a phone number: not sent, not charged';

/** The message rows of recipients [from, to) of a send. */
export function messagesOf(
  send: Pick<DueExpansion, 'kind' | 'text' | 'lang'> & Partial<Pick<DueExpansion, 'iys'>>,
  list: DeferredRecipients,
  from: number,
  to: number,
): NewMessage[] {
  const mode = send.kind === 'sms' ? 'single' : 'bulk';
  const out: NewMessage[] = [];
  // A commercial send's left-out recipients are the last of its list: no consent, then RET.
  const iys = send.iys ?? null;
  const firstLeftOut = iys === null ? Infinity : list.numbers.length - iys.none - iys.ret;
  const firstRet = iys === null ? Infinity : list.numbers.length - iys.ret;
  const writer = list.links === undefined ? null : new LinkWriter(list.links);
  for (let i = from; i < to; i++) {
    const recipient = list.numbers[i] ?? '';
    const given = list.texts ? (list.texts[i] ?? '') : (send.text ?? '');
    // With short links, each text gets links of its own here: as long as the stand-ins its
    // send was charged for (ShortLinkService.later), so the count is the one charged.
    const linked = writer?.linked(recipient, given) ?? null;
    const text = linked?.text ?? given;
    const message: NewMessage = {
      recipient,
      text: list.texts || linked ? text : null,
      smsCount: countFor(recipient, text, send.lang, mode),
      operator: operatorOf(recipient),
    };
    // Campaign reports count invalid numbers as failed; wrong numbers are charged (the spec
    // counts them in the SMS count), entries that are no number are not (countFor); neither
    // is ever submitted.
    if (iys !== null && i >= firstLeftOut) leaveOut(message, i >= firstRet ? 'RET' : 'NONE', iys.type);
    else if (!couldBeNumber(recipient)) message.failedDetail = notANumberDetail;
    else if (mode === 'bulk' && !isPlausibleNumber(recipient)) message.failedDetail = invalidNumberDetail;
    // A message that is never submitted has no links to follow.
    if (linked && linked.links.length > 0 && message.failedDetail === undefined) message.links = linked.links;
    out.push(message);
  }
  return out;
}

/** The recipients [from, to) of the send's list, to its end without `to` (a cancel's write-out). */
export function restOf(send: DueExpansion, from: number, to?: number): NewMessage[] {
  const list = decodeRecipients(send.pendingRecipients);
  return messagesOf(send, list, from, Math.min(to ?? Infinity, list.numbers.length));
}
