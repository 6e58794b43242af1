import type { Clock } from '../ports/clock.js';
import type { BalanceBucket, ChargeEntry, Store } from '../ports/store.js';
import type { MessageDefaults, NewMessage, NewSend } from '../ports/message-store.js';
import type { Caller } from './auth.js';
import { encodeRecipients } from '../domain/deferred-recipients.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { interactivePriority } from './send-service.js';
import type { Accepted, Charges, SendPlan } from './send-service.js';
import type { DispatchHandoff, HandedMessage } from '../ports/dispatch-handoff.js';

export interface AcceptRequest {
  caller: Caller;
  plan: SendPlan;
  charges: Charges;
  reply: (accepted: Accepted) => unknown;
  idempotency?: { key: string; hash: string };
}

/** What became of one request in a batch; a replay is answered from the stored response. */
export type Outcome = Result<unknown> | { replay: true } | { error: unknown };

/** What one batch wrote besides its outcomes: messages handed to the dispatcher, and whether any went to the store's queue. */
interface Written {
  outcomes: Outcome[];
  handed: HandedMessage[];
  queued: boolean;
}

const perMinuteFailure = fail('TS-1060', { variant: 'per-minute', retryAfterSeconds: 60, message: 'Per-minute send limit exceeded' });

function recipientsOf(plan: SendPlan): number {
  return 'now' in plan.recipients ? plan.recipients.now.length : plan.recipients.later.numbers.length;
}

/**
 * Group commit for sends. The sends accepted in one turn of the event loop are decided and
 * written in one transaction: balances and per-minute counts are read once under lock
 * (account rows on PostgreSQL; SQLite has one writer), each request is decided in order in
 * memory, and the accepted ones are charged and stored with a handful of multi-row
 * statements. Every answer still goes out only after the commit. If a batch fails as a
 * whole, each request is tried again in a transaction of its own, so one bad request cannot
 * fail the others.
 */
export class SendWriter {
  private readonly batcher = new MicroBatcher((items: AcceptRequest[]) => this.flush(items), 200);
  private handoff: DispatchHandoff | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Told after a commit that queued messages in the store for a dispatcher to claim. */
    private readonly onQueued: () => void,
  ) {}

  /** From now on, immediate interactive messages go straight to this process's dispatcher. */
  handOffTo(handoff: DispatchHandoff): void {
    this.handoff = handoff;
  }

  write(request: AcceptRequest): Promise<Outcome> {
    return this.batcher.add(request);
  }

  private async flush(items: AcceptRequest[]): Promise<Outcome[]> {
    try {
      return this.afterCommit(await this.transaction(items));
    } catch (error) {
      if (items.length === 1) return [{ error }];
      // Settle each alone, so a request whose own transaction fails gets its own error.
      const settled: Outcome[] = [];
      for (const item of items) {
        try {
          settled.push(this.afterCommit(await this.transaction([item]))[0] ?? { error: new Error('no outcome') });
        } catch (own) {
          settled.push({ error: own });
        }
      }
      return settled;
    }
  }

  /** One transaction; the room reserved for handed messages is given back if it fails. */
  private async transaction(items: readonly AcceptRequest[]): Promise<Written> {
    const reserved = { count: 0 };
    try {
      return await this.store.transaction((store) => this.decideAndWrite(store, items, reserved));
    } catch (error) {
      this.handoff?.release(reserved.count);
      throw error;
    }
  }

  private afterCommit(written: Written): Outcome[] {
    if (written.handed.length > 0) this.handoff?.hand(written.handed);
    if (written.queued) this.onQueued();
    return written.outcomes;
  }

  private async decideAndWrite(store: Store, items: readonly AcceptRequest[], reserved: { count: number }): Promise<Written> {
    const now = this.clock.now();
    const accountIds = [...new Set(items.map((i) => i.caller.account.id))].sort((a, b) => a - b);
    await store.lockAccounts(accountIds);
    const balances = await store.balancesOf(accountIds);
    const recent = new Map<number, number>();
    for (const item of items) {
      const account = item.caller.account;
      if (item.plan.perMinuteLimited === true && account.perMinuteLimit > 0 && !recent.has(account.id)) {
        recent.set(account.id, await store.messages.recipientsSince(account.id, now - 60_000));
      }
    }
    const ids = await store.messages.allocateIds(items.reduce((n, i) => n + 1 + ('now' in i.plan.recipients ? i.plan.recipients.now.length : 0), 0));
    let next = 0;
    const outcomes: Outcome[] = [];
    const charges: ChargeEntry[] = [];
    const sends: { id: number; send: NewSend }[] = [];
    const messages: { send: MessageDefaults; ids: number[]; messages: NewMessage[]; plan: SendPlan }[] = [];
    for (const item of items) {
      const { caller, plan } = item;
      const immediate = 'now' in plan.recipients ? plan.recipients.now : null;
      const sendId = ids[next] ?? 0;
      const messageIds = ids.slice(next + 1, next + 1 + (immediate?.length ?? 0));
      next += 1 + messageIds.length;
      const total = recipientsOf(plan);
      const response = item.reply({ sendId, messageIds, totalSms: item.charges.main + item.charges.international });
      if (item.idempotency) {
        const saved = await store.messages.saveIdempotent(caller.account.id, item.idempotency.key, item.idempotency.hash, JSON.stringify(response), now);
        if (!saved) {
          outcomes.push({ replay: true });
          continue;
        }
      }
      const limit = caller.account.perMinuteLimit;
      const counted = recent.get(caller.account.id);
      if (counted !== undefined && plan.perMinuteLimited === true && counted + total > limit) {
        outcomes.push(perMinuteFailure);
        if (item.idempotency) await store.messages.forgetIdempotent(caller.account.id, item.idempotency.key);
        continue;
      }
      const balance = balances.get(caller.account.id) ?? { main: 0, international: 0 };
      if (balance.main < item.charges.main || balance.international < item.charges.international) {
        outcomes.push(fail('TS-1027'));
        if (item.idempotency) await store.messages.forgetIdempotent(caller.account.id, item.idempotency.key);
        continue;
      }
      for (const bucket of ['main', 'international'] as BalanceBucket[]) {
        if (item.charges[bucket] === 0) continue;
        balance[bucket] -= item.charges[bucket];
        charges.push({ accountId: caller.account.id, bucket, amount: item.charges[bucket], reason: `${plan.kind} send`, reference: `send:${sendId}` });
      }
      if (counted !== undefined) recent.set(caller.account.id, counted + total);
      sends.push({ id: sendId, send: newSend(item, total, now) });
      if (immediate) {
        messages.push({
          send: { id: sendId, accountId: caller.account.id, keyId: caller.key.id, sandbox: caller.key.sandbox, createdAt: now, dueAt: plan.scheduledAt ?? now, priority: plan.priority },
          ids: messageIds,
          messages: immediate,
          plan,
        });
      }
      outcomes.push(ok(response));
    }
    const handed = this.handOver(messages, now, reserved);
    await store.applyCharges(charges, now);
    await store.messages.insertSends(sends);
    await store.messages.insertMessagesOf(messages);
    const queued = sends.some((s) => s.send.pendingRecipients !== null) || messages.some((g) => g.send.leaseUntil === undefined && g.messages.some((m) => m.failedDetail === undefined));
    return { outcomes, handed, queued };
  }

  /**
   * Immediate interactive messages are stored leased to this process's dispatcher and handed
   * to it after the commit, when it has room for all of this batch's; otherwise they are
   * queued in the store, as bulk and scheduled ones always are.
   */
  private handOver(groups: { send: MessageDefaults; ids: number[]; messages: NewMessage[]; plan: SendPlan }[], now: number, reserved: { count: number }): HandedMessage[] {
    const handoff = this.handoff;
    if (!handoff) return [];
    const eligible = groups.filter((g) => g.plan.priority === interactivePriority && g.plan.scheduledAt === null);
    const count = eligible.reduce((n, g) => n + g.messages.filter((m) => m.failedDetail === undefined).length, 0);
    if (count === 0 || !handoff.reserve(count)) return [];
    reserved.count = count;
    const leaseUntil = now + handoff.leaseMs;
    const handed: HandedMessage[] = [];
    for (const g of eligible) {
      g.send.leaseUntil = leaseUntil;
      g.messages.forEach((m, i) => {
        if (m.failedDetail !== undefined) return;
        handed.push({ id: g.ids[i] ?? 0, sendId: g.send.id, keyId: g.send.keyId, recipient: m.recipient, text: m.text ?? g.plan.text ?? '', sender: g.plan.sender, lang: g.plan.lang, sandbox: g.send.sandbox, attempts: 1, leaseUntil });
      });
    }
    return handed;
  }
}

function newSend(item: AcceptRequest, total: number, now: number): NewSend {
  const { caller, plan, charges } = item;
  return {
    accountId: caller.account.id,
    keyId: caller.key.id,
    kind: plan.kind,
    sender: plan.sender,
    text: plan.text,
    lang: plan.lang,
    contentType: plan.contentType,
    scheduledAt: plan.scheduledAt,
    sandbox: caller.key.sandbox,
    totalNumbers: total,
    invalidNumbers: plan.invalidNumbers ?? 0,
    blockedNumbers: 0,
    smsCost: charges.main + charges.international,
    createdAt: now,
    priority: plan.priority,
    pendingRecipients: 'later' in plan.recipients ? encodeRecipients(plan.recipients.later) : null,
  };
}
