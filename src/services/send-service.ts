import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Caller } from './auth.js';
import { fail, ok } from '../domain/result.js';
import type { Failure, Result } from '../domain/result.js';
import { SendWriter } from './send-writer.js';
import type { DispatchHandoff } from '../ports/dispatch-handoff.js';
import { chargesOf } from './send-plan.js';
import type { Accepted, SendPlan } from './send-plan.js';
import type { MessageMetrics } from '../ports/metrics.js';
import { noMessageMetrics } from '../ports/metrics.js';
import type { ConsentMarks, RecipientType } from '../domain/iys.js';
import { parseRetWords } from '../domain/iys.js';
import { commercialTextGaps } from '../domain/commercial-text.js';
import type { TextGap } from '../domain/commercial-text.js';

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
  private metrics: MessageMetrics = noMessageMetrics;

  /** From now on, the messages of every committed send are counted as accepted. */
  countInto(metrics: MessageMetrics): void {
    this.metrics = metrics;
  }

  /** From now on, immediate interactive messages go straight to this process's dispatcher (see DispatchHandoff). */
  handOffTo(handoff: DispatchHandoff): void {
    this.writer.handOffTo(handoff);
  }

  /** The consent in force of each recipient, in their order (a commercial send's filter). */
  async consentStatuses(accountId: number, type: RecipientType, numbers: readonly string[]): Promise<ConsentMarks> {
    return this.store.consents.statusesOf(accountId, type, numbers);
  }

  /**
   * What a commercial text lacks of the text rules (src/domain/commercial-text.ts), when the
   * account's İYS settings make them a refusal; [] otherwise (a warning only, or no settings).
   */
  async refusedTextGaps(accountId: number, sender: string, texts: readonly string[]): Promise<TextGap[]> {
    const settings = await this.store.consents.settingsOf(accountId);
    if (settings?.refuseTextRules !== true) return [];
    const words = parseRetWords(settings.retWords);
    const gaps = new Set<TextGap>();
    for (const text of new Set(texts)) for (const gap of commercialTextGaps(text, sender, words)) gaps.add(gap);
    return [...gaps];
  }

  async isApprovedSender(accountId: number, title: string): Promise<boolean> {
    return this.store.senderIds.hasApprovedSender(accountId, title);
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
    const found = await this.store.idempotency.find(caller.account.id, key);
    if (!found || found.createdAt < this.clock.now() - 24 * 3600_000) return null;
    if (found.requestHash !== hash)
      return fail('TS-1033', { message: 'idempotency_key was already used with a different request' });
    return ok(found.response);
  }

  async accept(
    caller: Caller,
    plan: SendPlan,
    reply: (accepted: Accepted) => unknown,
    idempotency?: { key: string; hash: string },
  ): Promise<Result<unknown>> {
    const charges = 'now' in plan.recipients ? chargesOf(plan.recipients.now) : plan.recipients.charges;
    const noted = (accepted: Accepted): unknown => {
      caller.accepted = accepted;
      return reply(accepted);
    };
    const outcome = await this.writer.write({
      caller,
      plan,
      charges,
      reply: noted,
      ...(idempotency ? { idempotency } : {}),
    });
    if ('error' in outcome) throw outcome.error;
    if ('ok' in outcome && outcome.ok)
      this.metrics.messages(
        'accepted',
        'now' in plan.recipients ? plan.recipients.now.length : plan.recipients.later.numbers.length,
      );
    if ('replay' in outcome) {
      const again = idempotency ? await this.replay(caller, idempotency.key, idempotency.hash) : null;
      if (!again) throw new Error('idempotency key taken but no stored response');
      return again.ok ? ok(JSON.parse(again.value) as unknown) : again;
    }
    return outcome;
  }
}

/** The quick check before the send transaction; the writer checks again under lock. */
async function perMinuteFailure(
  store: Store,
  caller: Caller,
  recipients: number,
  now: number,
): Promise<Failure | null> {
  const limit = caller.account.perMinuteLimit;
  if (limit <= 0) return null;
  const recent = await store.reports.recipientsSince(caller.account.id, now - 60_000);
  if (recent + recipients <= limit) return null;
  return fail('TS-1060', { variant: 'per-minute', retryAfterSeconds: 60, message: 'Per-minute send limit exceeded' });
}
