/**
 * What is owed to the customers' SMPP users: receipts of their submits and of the parts of
 * their concatenated submits, and their accounts' inbound messages (MO), rows of the outbox
 * (docs/decisions.md, "One outbox"). The SMPP server owes them in the transaction that
 * accepts a submit, and its receipt courier claims them with a lease and settles them.
 */
import type { Clock } from '../../ports/clock.js';
import type {
  DueMo,
  DueReceipt,
  OutboxKind,
  OutboxLease,
  OutboxStore,
  OwedSmppPartReceipt,
} from '../../ports/outbox.js';
import type { AssemblyPart } from '../../ports/smpp-parts.js';
import type { SendPlan } from '../send-plan.js';

export type { DueMo, DueReceipt, OutboxKind, OutboxLease };

/** Where a submit went: its source_addr and its recipient. */
export interface SubmitTo {
  sourceAddr: string;
  recipient: string;
}

/** A submit accepted over SMPP, as the receipts owed for it are written. */
export interface OwedSubmit {
  smppUserId: number;
  to: SubmitTo;
  /** registered_delivery asked for a receipt. */
  receipt: boolean;
  /** The parts of its concatenated message other than the last (the submit itself). */
  others: readonly AssemblyPart[];
  /** Not before this instant (its schedule; 0: none). */
  keptFrom: number;
  clock: Clock;
  /** Called with the accepted message's id before the receipts are written. */
  accepting(messageId: string): void;
}

/** Receipts for the parts of a concatenated message other than the last (each under its own id); `messageId` null: REJECTD. */
function partReceipts(
  smppUserId: number,
  to: SubmitTo,
  parts: readonly AssemblyPart[],
  messageId: number | null,
  keptFrom = 0,
): OwedSmppPartReceipt[] {
  return parts
    .filter((p) => p.receipt)
    .map((p) => ({ partId: p.partId, smppUserId, messageId, ...to, submittedAt: Math.max(p.receivedAt, keptFrom) }));
}

export class OwedToCustomers {
  constructor(private readonly outbox: OutboxStore) {}

  /**
   * What the send's transaction writes beside the accepted message: its receipt (when asked
   * for) and its earlier parts' receipts, owed from the message's time or its schedule.
   */
  withSubmit(s: OwedSubmit): NonNullable<SendPlan['alongside']> {
    return async (store, _sendId, messageIds) => {
      const messageId = messageIds[messageIds.length - 1];
      if (messageId === undefined) return;
      s.accepting(String(messageId));
      const createdAt = Math.max(s.clock.now(), s.keptFrom);
      if (s.receipt)
        await store.outbox.oweReceipts([
          { messageId, smppUserId: s.smppUserId, sourceAddr: s.to.sourceAddr, createdAt },
        ]);
      await store.outbox.owePartReceipts(partReceipts(s.smppUserId, s.to, s.others, messageId, s.keptFrom), createdAt);
    };
  }

  /** The parts of a concatenated message that never made one (given up, or refused): their receipts say REJECTD. */
  rejectedParts(smppUserId: number, to: SubmitTo, parts: readonly AssemblyPart[], now: number): Promise<void> {
    return this.outbox.owePartReceipts(partReceipts(smppUserId, to, parts, null), now);
  }

  /** Receipts owed to the user, final and not acknowledged. */
  receiptsDue(smppUserId: number): Promise<number> {
    return this.outbox.receiptsDue(smppUserId);
  }

  /** Claims up to `limit` receipts due to the user for the lease, oldest first. */
  claimReceipts(smppUserId: number, lease: OutboxLease, limit: number): Promise<DueReceipt[]> {
    return this.outbox.claimReceipts(smppUserId, lease, limit);
  }

  /** Claims up to `limit` inbound messages due to the account for the lease, oldest first. */
  claimMo(accountId: number, lease: OutboxLease, limit: number): Promise<DueMo[]> {
    return this.outbox.claimMo(accountId, lease, limit);
  }

  /** Records the answers: `done` rows go, `held` ones wait until `holdUntil`, `released` ones are due again at once. */
  async settle(
    answers: { done: readonly number[]; held: readonly number[]; released: readonly number[] },
    holder: string,
    holdUntil: number,
  ): Promise<void> {
    await this.outbox.done(answers.done);
    await this.outbox.holdUntil(answers.held, holder, holdUntil);
    await this.outbox.release(answers.released, holder);
  }

  /** Gives up the rows of these kinds owed since before `before`; answers how many. */
  removeBefore(kinds: readonly OutboxKind[], before: number): Promise<number> {
    return this.outbox.removeBefore(kinds, before);
  }
}
