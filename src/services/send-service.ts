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

/** What a send writes: recipients with their texts and counts, charged all or nothing. */
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
  messages: NewMessage[];
  invalidNumbers?: number;
  /** The account's per-minute limit applies (it does on /sms/send). */
  perMinuteLimited?: boolean;
}

export interface Accepted {
  sendId: number;
  messageIds: number[];
  totalSms: number;
}

/** Raised inside the send transaction to roll it back when the idempotency key is taken. */
class IdempotencyTaken extends Error {}

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
    private readonly onAccepted: () => void,
  ) {}

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
    const now = this.clock.now();
    let main = 0;
    let international = 0;
    for (const m of plan.messages) {
      if (isTurkeyNumber(m.recipient)) main += m.smsCount;
      else international += m.smsCount;
    }
    try {
      const result = await this.store.transaction(async (store): Promise<Result<unknown>> => {
        const ids = await store.messages.allocateIds(plan.messages.length + 1);
        const sendId = ids[0] ?? 0;
        const messageIds = ids.slice(1);
        const response = reply({ sendId, messageIds, totalSms: main + international });
        if (idempotency) {
          const saved = await store.messages.saveIdempotent(caller.account.id, idempotency.key, idempotency.hash, JSON.stringify(response), now);
          if (!saved) throw new IdempotencyTaken();
        }
        for (const [bucket, amount] of [
          ['main', main],
          ['international', international],
        ] as const) {
          if (amount === 0) continue;
          const charged = await store.charge(caller.account.id, bucket, amount, `${plan.kind} send`, `send:${sendId}`, now);
          // Throwing rolls back the whole transaction, including a charge already made to
          // the other balance.
          if (!charged) throw new InsufficientBalance();
        }
        // The charge holds the account's row (PostgreSQL) or the write lock (SQLite) until
        // commit, so concurrent sends of one account count each other's recipients here and
        // cannot pass the limit together, as they could with the check before the transaction.
        if (plan.perMinuteLimited === true) {
          const limited = await perMinuteFailure(store, caller, plan.messages.length, now);
          if (limited) throw new PerMinuteExceeded(limited);
        }
        await store.messages.insertSend(sendId, {
          accountId: caller.account.id,
          keyId: caller.key.id,
          kind: plan.kind,
          sender: plan.sender,
          text: plan.text,
          lang: plan.lang,
          contentType: plan.contentType,
          scheduledAt: plan.scheduledAt,
          sandbox: caller.key.sandbox,
          totalNumbers: plan.messages.length,
          invalidNumbers: plan.invalidNumbers ?? 0,
          blockedNumbers: 0,
          smsCost: main + international,
          createdAt: now,
        });
        await store.messages.insertMessages(
          { id: sendId, accountId: caller.account.id, keyId: caller.key.id, sandbox: caller.key.sandbox, createdAt: now, dueAt: plan.scheduledAt ?? now, priority: plan.priority },
          messageIds,
          plan.messages,
        );
        return ok(response);
      });
      this.onAccepted();
      return result;
    } catch (error) {
      if (error instanceof InsufficientBalance) return fail('TS-1027');
      if (error instanceof PerMinuteExceeded) return error.failure;
      if (error instanceof IdempotencyTaken && idempotency) {
        const again = await this.replay(caller, idempotency.key, idempotency.hash);
        if (again && !again.ok) return again;
        if (again?.ok) return ok(JSON.parse(again.value) as unknown);
      }
      throw error;
    }
  }
}

class InsufficientBalance extends Error {}

/** Raised inside the send transaction to roll it back when the per-minute limit is passed. */
class PerMinuteExceeded extends Error {
  constructor(readonly failure: Failure) {
    super('per-minute send limit exceeded');
  }
}

async function perMinuteFailure(store: Store, caller: Caller, recipients: number, now: number): Promise<Failure | null> {
  const limit = caller.account.perMinuteLimit;
  if (limit <= 0) return null;
  const recent = await store.messages.recipientsSince(caller.account.id, now - 60_000, limit + 1);
  if (recent + recipients <= limit) return null;
  return fail('TS-1060', { variant: 'per-minute', retryAfterSeconds: 60, message: 'Per-minute send limit exceeded' });
}

