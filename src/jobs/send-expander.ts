import type { Clock } from '../ports/clock.js';
import type { DispatchQueue, DueExpansion } from '../ports/dispatch-queue.js';
import type { NewMessage } from '../ports/messages.js';
import { decodeRecipients } from '../domain/deferred-recipients.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';
import { countFor } from '../domain/sms-count.js';
import { operatorOf } from '../domain/operators.js';
import { couldBeNumber, isPlausibleNumber } from '../domain/recipients.js';
import { leaveOut } from '../domain/iys.js';

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
  for (let i = from; i < to; i++) {
    const recipient = list.numbers[i] ?? '';
    const text = list.texts ? (list.texts[i] ?? '') : (send.text ?? '');
    const message: NewMessage = {
      recipient,
      text: list.texts ? text : null,
      smsCount: countFor(recipient, text, send.lang, mode),
      operator: operatorOf(recipient),
    };
    // Campaign reports count invalid numbers as failed; wrong numbers are charged (the spec
    // counts them in the SMS count), entries that are no number are not (countFor); neither
    // is ever submitted.
    if (iys !== null && i >= firstLeftOut) leaveOut(message, i >= firstRet ? 'RET' : 'NONE', iys.type);
    else if (!couldBeNumber(recipient)) message.failedDetail = notANumberDetail;
    else if (mode === 'bulk' && !isPlausibleNumber(recipient)) message.failedDetail = invalidNumberDetail;
    out.push(message);
  }
  return out;
}

/**
 * Writes out the recipients of bulk and scheduled sends that are due, one chunk per call,
 * so a 50,000-number campaign never holds the store (or the dispatcher's loop) for long.
 * Each chunk commits its messages with the send's progress, so a crash resumes where the
 * last chunk ended.
 */
export class SendExpander {
  private cached: { id: number; list: DeferredRecipients } | null = null;

  constructor(
    private readonly store: Pick<DispatchQueue, 'claimExpansion' | 'expandChunk'>,
    private readonly clock: Clock,
    private readonly chunkSize = 5000,
    private readonly leaseMs = 60_000,
  ) {}

  /** Expands the next chunk of a due send; returns how many messages it wrote. */
  async expandNext(): Promise<number> {
    const now = this.clock.now();
    const send = await this.store.claimExpansion(now, now + this.leaseMs);
    if (!send) return 0;
    if (this.cached?.id !== send.id) this.cached = { id: send.id, list: decodeRecipients(send.pendingRecipients) };
    const list = this.cached.list;
    const from = send.expandedCount;
    const to = Math.min(from + this.chunkSize, list.numbers.length);
    const done = to >= list.numbers.length;
    const written = await this.store.expandChunk(send, from, messagesOf(send, list, from, to), done, now);
    if (done || !written) this.cached = null;
    return written ? to - from : 0;
  }
}
