import type { Clock } from '../ports/clock.js';
import type { DispatchQueue } from '../ports/dispatch-queue.js';
import { decodeRecipients } from '../domain/deferred-recipients.js';
import type { DeferredRecipients } from '../domain/deferred-recipients.js';
import { messagesOf, restOf } from '../services/deferred-messages.js';

/**
 * Writes out the recipients of bulk and scheduled sends that are due, one chunk per call
 * (and, first, the messages of large cancels still to be cancelled, one chunk per call),
 * so a 50,000-number campaign never holds the store (or the dispatcher's loop) for long.
 * Each chunk commits its messages with the send's progress, so a crash resumes where the
 * last chunk ended.
 */
export class SendExpander {
  private cached: { id: number; list: DeferredRecipients } | null = null;

  constructor(
    private readonly store: Pick<DispatchQueue, 'claimExpansion' | 'expandChunk' | 'settleCancels'>,
    private readonly clock: Clock,
    private readonly chunkSize = 5000,
    private readonly leaseMs = 60_000,
  ) {}

  /**
   * Settles the next chunk of a large cancel (campaign-controls.ts), or else expands the
   * next chunk of a due send; returns how many messages it wrote or settled.
   */
  async expandNext(): Promise<number> {
    const now = this.clock.now();
    const settled = await this.store.settleCancels(now, restOf, this.chunkSize);
    if (settled > 0) return settled;
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
