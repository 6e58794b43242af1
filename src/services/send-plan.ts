import type { NewMessage, SendKind } from '../ports/messages.js';
import type { Store } from '../ports/store.js';
import type { Failure } from '../domain/result.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';
import type { SmsLang } from '../domain/labels.js';
import { countFor } from '../domain/sms-count.js';
import { isTurkeyNumber } from '../domain/recipients.js';
import { operatorOf } from '../domain/operators.js';
import type { CommercialTally } from '../domain/iys.js';
import type { SendControls } from '../domain/send-controls.js';

/**
 * What a send is, shared by the use cases that build one (single-send, bulk-send, OTP) and
 * the machinery that writes it (send-service, send-writer, send-batch). Its own module, so
 * that machinery imports nothing of the service that drives it.
 */

/**
 * What a send writes. Recipients are written as messages now (immediate /sms/send and OTP,
 * whose responses name message ids), or kept as one list until the send is due (bulk and
 * scheduled sends), when the expander writes them out a chunk at a time.
 */
export interface SendPlan {
  kind: SendKind;
  sender: string;
  /** The one text of the send (TS-L already converted), or null when per message. */
  text: string | null;
  /**
   * The text the carrier is given when it differs from the stored `text` (an OTP's, whose
   * stored text has the code masked): kept in memory for the hand-off only.
   */
  deliveredText?: string;
  lang: SmsLang;
  contentType: number;
  scheduledAt: number | null;
  /** The send's lane (domain/lanes.ts): interactive (OTP, /sms/send to one number now) before bulk. */
  priority: number;
  recipients: { now: NewMessage[] } | { later: DeferredRecipients; charges: Charges };
  invalidNumbers?: number;
  /** Numbers left out for the blocking list (panel sends), recorded with the send. */
  blockedNumbers?: number;
  /** A commercial send's filter (İYS): recorded with the send; a later list ends with the left-out. */
  iys?: CommercialTally;
  /** The account's per-minute limit applies (it does on /sms/send). */
  perMinuteLimited?: boolean;
  /**
   * Writes of the use case that belong to the send's transaction (a panel send's audit
   * row, an OTP's code): run after the send's own writes, committed with them; a throw
   * undoes the send. `messageIds`: the ids of the messages written now (none for later).
   */
  alongside?: (store: Store, sendId: number, messageIds: readonly number[]) => Promise<void>;
  /**
   * A limit of the use case that must hold however many requests run at once, in any
   * process (the OTP guard's counts): decided in the send's transaction, after the account's
   * lock, before the per-minute limit and the balance. Refused, nothing is written or charged.
   */
  admit?: SendAdmission;
  /**
   * The window, speed and validity the request asked for (docs/api.md); each one it left
   * out is the account's default, if it has one (not for OTP). Such a send is never handed off.
   */
  controls?: SendControls;
  /**
   * `controls` (or none) is the send's whole choice: the account's defaults fill none of its
   * fields (the panel's send form, which showed them, so an emptied field means none).
   */
  withoutDefaults?: boolean;
}

/** A use case's own limit, checked under the send's lock (SendPlan.admit). */
export interface SendAdmission {
  /** What an accepted request counts under until its writes are in the store. */
  keys: readonly string[];
  /**
   * The refusal, or null. `unwritten(key)`: requests of this transaction accepted under
   * `key` whose writes are not in the store yet (a batch writes its accepted requests
   * together, after deciding them all), which the store's counts therefore miss.
   */
  check(store: Store, now: number, unwritten: (key: string) => number): Promise<Failure | null>;
}

/** SMS counts charged to each balance: Türkiye numbers to main, the others to international. */
export interface Charges {
  main: number;
  international: number;
}

/** The ids and total of an accepted send, from which its use case builds its reply. */
export interface Accepted {
  sendId: number;
  messageIds: number[];
  totalSms: number;
}

export { interactivePriority, bulkPriority } from '../domain/lanes.js';

export function chargesOf(counts: Iterable<{ recipient: string; smsCount: number }>): Charges {
  const charges: Charges = { main: 0, international: 0 };
  for (const m of counts) {
    if (isTurkeyNumber(m.recipient)) charges.main += m.smsCount;
    else charges.international += m.smsCount;
  }
  return charges;
}

/** Builds the message rows of a send with one text for many numbers. */
export function messagesFor(
  numbers: readonly string[],
  text: string,
  lang: SmsLang,
  mode: 'single' | 'bulk',
): NewMessage[] {
  return numbers.map((recipient) => ({
    recipient,
    text: null,
    smsCount: countFor(recipient, text, lang, mode),
    operator: operatorOf(recipient),
  }));
}
