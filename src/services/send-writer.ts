import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { MicroBatcher } from '../util/micro-batcher.js';
import { laneOf } from '../domain/lanes.js';
import { outcomeUnknown, storeFault } from '../util/store-faults.js';
import type { DispatchHandoff, HandedMessage } from '../ports/dispatch-handoff.js';
import { allocateSlots, decide, groupsOf, holdUnwritten, queues, readLedger, record, writeAll } from './send-batch.js';
import type { AcceptRequest, Ledger, MessageGroup, Outcome, Slot, Writes } from './send-batch.js';

export type { AcceptRequest, Outcome } from './send-batch.js';

/**
 * Whether a failed transaction may succeed in smaller ones: not when the store itself
 * failed (away, silent, out of disk: each smaller try would wait for it or fail the same,
 * and the requests queued behind would wait for them all), and never after a commit whose
 * outcome is unknown (it may have been made: a second try would store and charge it twice).
 */
function worthRetrying(error: unknown): boolean {
  return storeFault(error) === null && !outcomeUnknown(error);
}

/** What one batch wrote besides its outcomes: messages handed to the dispatcher, and whether any went to the store's queue. */
interface Written {
  outcomes: Outcome[];
  handed: HandedMessage[];
  queued: boolean;
}

/**
 * Group commit for sends. The sends accepted in one turn of the event loop are decided and
 * written in one transaction: balances and per-minute counts are read once under lock
 * (account rows on PostgreSQL; SQLite has one writer), each request is decided in order in
 * memory, and the accepted ones are charged and stored with a handful of multi-row
 * statements. Every answer still goes out only after the commit.
 *
 * A request whose writes the store refuses fails alone. When a batch's transaction fails,
 * the batch is tried once more in one transaction in which each request is decided and
 * written under a savepoint of its own: the failing one's writes are undone to it and it is
 * answered with its error, and the others commit together. Only when that transaction fails
 * as well (its commit, its connection) is each request tried in a transaction of its own.
 * A fault of the store itself (away, silent, a full disk) or a commit of unknown outcome is
 * not tried again: every request of the batch is answered with it at once.
 * The first try takes no savepoint: one costs a round trip to PostgreSQL on every batch
 * (docs/decisions.md), and a refused write is rare once requests are validated.
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
      return this.afterCommit(await this.transaction(items, 'together'));
    } catch (error) {
      if (items.length === 1 || !worthRetrying(error)) return items.map(() => ({ error }));
    }
    try {
      return this.afterCommit(await this.transaction(items, 'each'));
    } catch (error) {
      if (!worthRetrying(error)) return items.map(() => ({ error }));
    }
    // Settle each alone, so a request whose own transaction fails gets its own error.
    const settled: Outcome[] = [];
    for (const [i, item] of items.entries()) {
      try {
        settled.push(
          this.afterCommit(await this.transaction([item], 'together'))[0] ?? { error: new Error('no outcome') },
        );
      } catch (own) {
        settled.push({ error: own });
        // The store is away: the rest would only wait for it too.
        if (!worthRetrying(own)) return [...settled, ...items.slice(i + 1).map(() => ({ error: own }))];
      }
    }
    return settled;
  }

  /**
   * One transaction: the batch's writes together, or each request's under a savepoint of its
   * own. The room reserved for handed messages is given back if it fails.
   */
  private async transaction(items: readonly AcceptRequest[], writes: 'together' | 'each'): Promise<Written> {
    const reserved = { count: 0 };
    try {
      return await this.store.transaction(async (store) => {
        const now = this.clock.now();
        const ledger = await readLedger(store, items, now);
        const slots = await allocateSlots(store, items);
        return writes === 'together'
          ? this.writeTogether(store, slots, ledger, now, reserved)
          : this.writeEachAlone(store, slots, ledger, now);
      });
    } catch (error) {
      this.handoff?.release(reserved.count);
      throw error;
    }
  }

  private afterCommit(written: Written): Outcome[] {
    if (written.handed.length > 0) this.handoff?.handOff(written.handed);
    if (written.queued) this.onQueued();
    return written.outcomes;
  }

  /** Decides every request in order, then writes the accepted ones with multi-row statements. */
  private async writeTogether(
    store: Store,
    slots: readonly Slot[],
    ledger: Ledger,
    now: number,
    reserved: { count: number },
  ): Promise<Written> {
    const outcomes: Outcome[] = [];
    const accepted: Writes[] = [];
    for (const slot of slots) {
      const decision = await decide(store, slot, ledger, now);
      outcomes.push(decision.outcome);
      if (!decision.writes) continue;
      record(ledger, decision.writes);
      holdUnwritten(ledger, decision.writes);
      accepted.push(decision.writes);
    }
    const handed = this.prepareHandoff(groupsOf(accepted), now, reserved);
    await writeAll(store, accepted, now);
    return { outcomes, handed, queued: queues(accepted) };
  }

  /**
   * Decides and writes each request under a savepoint of its own: one whose writes fail is
   * answered with its error and leaves nothing, the ledger as if it had not been sent.
   * Messages are queued in the store, not handed off.
   */
  private async writeEachAlone(store: Store, slots: readonly Slot[], ledger: Ledger, now: number): Promise<Written> {
    const outcomes: Outcome[] = [];
    const accepted: Writes[] = [];
    for (const slot of slots) {
      try {
        const decision = await store.savepoint(async () => {
          const decided = await decide(store, slot, ledger, now);
          if (decided.writes) await writeAll(store, [decided.writes], now);
          return decided;
        });
        outcomes.push(decision.outcome);
        if (!decision.writes) continue;
        record(ledger, decision.writes);
        accepted.push(decision.writes);
      } catch (error) {
        outcomes.push({ error });
      }
    }
    return { outcomes, handed: [], queued: queues(accepted) };
  }

  /**
   * Immediate interactive messages are stored leased to this process's dispatcher and handed
   * to it after the commit, when it has room for all of this batch's; otherwise they are
   * queued in the store, as bulk and scheduled ones always are.
   */
  private prepareHandoff(groups: MessageGroup[], now: number, reserved: { count: number }): HandedMessage[] {
    const handoff = this.handoff;
    if (!handoff) return [];
    // Immediate sends of either lane: the dispatcher orders what it holds by lane and account.
    // A send with a window, speed or validity waits in the store for the claim that decides on it.
    const eligible = groups.filter((g) => g.plan.scheduledAt === null && g.controlled !== true);
    const count = eligible.reduce((n, g) => n + g.messages.filter((m) => m.failedDetail === undefined).length, 0);
    if (count === 0 || !handoff.reserve(count)) return [];
    reserved.count = count;
    const leaseUntil = now + handoff.leaseMs;
    const handed: HandedMessage[] = [];
    for (const g of eligible) {
      g.send.leaseUntil = leaseUntil;
      g.messages.forEach((m, i) => {
        if (m.failedDetail !== undefined) return;
        handed.push({
          id: g.ids[i] ?? 0,
          sendId: g.send.id,
          keyId: g.send.keyId,
          recipient: m.recipient,
          text: g.plan.deliveredText ?? m.text ?? g.plan.text ?? '',
          sender: g.plan.sender,
          lang: g.plan.lang,
          sandbox: g.send.sandbox,
          attempts: 1,
          accountId: g.send.accountId,
          lane: laneOf(g.send.priority),
          leaseUntil,
        });
      });
    }
    return handed;
  }
}
