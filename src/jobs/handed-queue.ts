import type { HandedMessage } from '../ports/dispatch-handoff.js';
import type { DispatchWindow } from './dispatch-window.js';

/**
 * Messages this process's HTTP side stored already leased to the dispatcher and handed
 * over in memory (DispatchHandoff), oldest first, until the dispatcher starts them. Their
 * room in the window was reserved by the HTTP side; a message let go gives its room back.
 */
export class HandedQueue {
  private items: HandedMessage[] = [];
  /** Messages came since the last `takeArrival()`: a wake of the loop may have been theirs, not the store's. */
  private arrived = false;

  constructor(private readonly leaseMs: number) {}

  get length(): number {
    return this.items.length;
  }

  /** Messages not yet started (the lease heartbeat extends their leases too). */
  waiting(): readonly HandedMessage[] {
    return this.items;
  }

  receive(messages: readonly HandedMessage[]): void {
    for (const m of messages) this.items.push(m);
    this.arrived = true;
  }

  /** Whether messages came since the last call. */
  takeArrival(): boolean {
    const arrived = this.arrived;
    this.arrived = false;
    return arrived;
  }

  /**
   * Up to `room` messages to start now. One with less than half its lease left is let go
   * (its room in `window` is given back): the lease brings it back to the store's queue,
   * and submitting it now could overlap with a claim of it after the lease.
   */
  take(room: number, now: number, window: DispatchWindow): HandedMessage[] {
    if (this.items.length === 0) return [];
    let taken = 0;
    const started: HandedMessage[] = [];
    while (started.length < room && taken < this.items.length) {
      const m = this.items[taken] as HandedMessage;
      taken += 1;
      if (m.leaseUntil - now >= this.leaseMs / 2) started.push(m);
    }
    this.items = taken === this.items.length ? [] : this.items.slice(taken);
    window.release(taken - started.length);
    return started;
  }
}
