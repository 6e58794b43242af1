import type { ClaimedMessage } from './dispatch-queue.js';

/** A message stored already leased to this process's dispatcher, with the lease it holds. */
export interface HandedMessage extends ClaimedMessage {
  leaseUntil: number;
}

/**
 * Hands off messages accepted by this process straight to its own dispatcher. They are stored
 * already claimed (state `submitting`, leased to this process) in the transaction that
 * accepts them, and their content goes to the dispatcher in memory after the commit, so the
 * dispatcher does not have to claim them back from the store a moment later. The store
 * stays the queue: if the process dies, or the dispatcher cannot take a message while at
 * least half its lease is left, the lease runs out and the message is claimed as any other.
 */
export interface DispatchHandoff {
  /** How long a handed message is leased for (the dispatcher's lease). */
  readonly leaseMs: number;
  /** Takes room for n messages in the dispatcher's window; false when it is full (they are then queued in the store). */
  reserve(n: number): boolean;
  /** Gives back room reserved for messages that were not stored after all. */
  release(n: number): void;
  /** Hands off messages whose transaction has committed, for which room was reserved. */
  handOff(messages: HandedMessage[]): void;
}
