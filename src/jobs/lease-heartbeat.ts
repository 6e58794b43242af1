import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import type { DispatchQueue } from '../ports/dispatch-queue.js';
import { errorFields } from '../util/error-fields.js';

/**
 * A live dispatcher's hold on its messages: every third of the lease it extends the leases
 * of the messages it is submitting and of those handed to it and still waiting, so no other
 * process takes them however long the carrier takes to answer. The lease then bounds only how
 * long a dead (or frozen, or cut-off) process's messages wait (docs/decisions.md, Delivery).
 */
export class LeaseHeartbeat {
  /** Messages launched and not yet settled. */
  private readonly held = new Set<number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Pick<DispatchQueue, 'extendLeases'>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly leaseMs: number,
    /** Handed messages not yet started (their in-memory lease is moved on with the store's). */
    private readonly waiting: () => readonly HandedMessage[],
  ) {}

  hold(id: number): void {
    this.held.add(id);
  }

  release(id: number): void {
    this.held.delete(id);
  }

  start(): void {
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async beat(): Promise<void> {
    const waiting = this.waiting();
    if (this.held.size === 0 && waiting.length === 0) return;
    const now = this.clock.now();
    const until = now + this.leaseMs;
    try {
      const ids = [...this.held, ...waiting.map((m) => m.id)];
      const extended = await this.store.extendLeases(ids, now, until);
      // Handed messages not yet started keep their room while their lease is whole (see
      // Dispatcher.takeHandedOff); when any lease had run out, which one is not known: they keep theirs.
      if (extended === ids.length) for (const m of waiting) m.leaseUntil = until;
    } catch (error) {
      this.log.warn(
        { err: errorFields(error), held: this.held.size },
        'dispatcher: could not extend leases; trying again at the next beat',
      );
    }
  }
}
