import { createHash } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { NewMessage, SendKind } from '../ports/message-store.js';
import type { Caller } from './auth.js';
import { countFor } from '../domain/sms-count.js';
import { isTurkeyNumber } from '../domain/recipients.js';
import { operatorOf } from '../domain/operators.js';
import { fail, ok } from '../domain/result.js';
import type { Failure, Result } from '../domain/result.js';
import type { SmsLang } from '../domain/labels.js';
import { SendWriter } from './send-writer.js';
import type { DispatchHandoff } from '../ports/dispatch-handoff.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';

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
  lang: SmsLang;
  contentType: number;
  scheduledAt: number | null;
  /** Interactive sends (single, OTP) go before bulk ones in the queue. */
  priority: number;
  recipients: { now: NewMessage[] } | { later: DeferredRecipients; charges: Charges };
  invalidNumbers?: number;
  /** Numbers left out for the blocking list (panel sends), recorded with the send. */
  blockedNumbers?: number;
  /** The account's per-minute limit applies (it does on /sms/send). */
  perMinuteLimited?: boolean;
}

/** SMS counts charged to each balance: Türkiye numbers to main, the others to international. */
export interface Charges {
  main: number;
  international: number;
}

export function chargesOf(counts: Iterable<{ recipient: string; smsCount: number }>): Charges {
  const charges: Charges = { main: 0, international: 0 };
  for (const m of counts) {
    if (isTurkeyNumber(m.recipient)) charges.main += m.smsCount;
    else charges.international += m.smsCount;
  }
  return charges;
}


export interface Accepted {
  sendId: number;
  messageIds: number[];
  totalSms: number;
}


export const interactivePriority = 0;
export const bulkPriority = 1;

/** Builds the message rows of a send with one text for many numbers. */
export function messagesFor(numbers: readonly string[], text: string, lang: SmsLang, mode: 'single' | 'bulk'): NewMessage[] {
  return numbers.map((recipient) => ({ recipient, text: null, smsCount: countFor(recipient, text, lang, mode), operator: operatorOf(recipient) }));
}

export function requestHash(input: unknown): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex');
}

/**
 * Accepting a send: everything it needs is checked, then in one transaction the balance is
 * charged through the ledger and every recipient is written as a queued message. Either
 * all of it is stored or none of it; the response goes out only after the commit.
 */
export class SendService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Told after a commit that queued messages in the store for a dispatcher to claim. */
    onQueued: () => void,
  ) {
    this.writer = new SendWriter(store, clock, onQueued);
  }

  private readonly writer: SendWriter;

  /** From now on, immediate interactive messages go straight to this process's dispatcher (see DispatchHandoff). */
  handOffTo(handoff: DispatchHandoff): void {
    this.writer.handOffTo(handoff);
  }

  async isApprovedSender(accountId: number, title: string): Promise<boolean> {
    return this.store.hasApprovedSender(accountId, title);
  }

  /**
   * The account's per-minute limit: recipients recorded in the last 60 s, sliding. Checked
   * here first, so its code wins over the balance's, and again inside the send transaction.
   */
  async perMinuteCheck(caller: Caller, recipients: number): Promise<Failure | null> {
    return perMinuteFailure(this.store, caller, recipients, this.clock.now());
  }

  /** Idempotent replay: the stored reply for the same key and body, or TS-1033 for another body. */
  async replay(caller: Caller, key: string, hash: string): Promise<Result<string> | null> {
    const found = await this.store.messages.findIdempotent(caller.account.id, key);
    if (!found || found.createdAt < this.clock.now() - 24 * 3600_000) return null;
    if (found.requestHash !== hash) return fail('TS-1033', { message: 'idempotency_key was already used with a different request' });
    return ok(found.response);
  }

  async accept(caller: Caller, plan: SendPlan, reply: (accepted: Accepted) => unknown, idempotency?: { key: string; hash: string }): Promise<Result<unknown>> {
    const charges = 'now' in plan.recipients ? chargesOf(plan.recipients.now) : plan.recipients.charges;
    const outcome = await this.writer.write({ caller, plan, charges, reply, ...(idempotency ? { idempotency } : {}) });
    if ('error' in outcome) throw outcome.error;
    if ('replay' in outcome) {
      const again = idempotency ? await this.replay(caller, idempotency.key, idempotency.hash) : null;
      if (!again) throw new Error('idempotency key taken but no stored response');
      return again.ok ? ok(JSON.parse(again.value) as unknown) : again;
    }
    return outcome;
  }
}

/** The quick check before the send transaction; the writer checks again under lock. */
async function perMinuteFailure(store: Store, caller: Caller, recipients: number, now: number): Promise<Failure | null> {
  const limit = caller.account.perMinuteLimit;
  if (limit <= 0) return null;
  const recent = await store.messages.recipientsSince(caller.account.id, now - 60_000);
  if (recent + recipients <= limit) return null;
  return fail('TS-1060', { variant: 'per-minute', retryAfterSeconds: 60, message: 'Per-minute send limit exceeded' });
}
