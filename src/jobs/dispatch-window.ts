/**
 * A dispatcher's window: the messages it has claimed or been handed and not yet settled,
 * counted in memory that the HTTP thread and the dispatch thread share. The HTTP thread
 * reserves room before it stores messages as handed to the dispatcher (DispatchHandoff),
 * the dispatcher reserves room before it claims from the store, and each message gives its
 * room back once its submit has settled (or it was let go). Bounded by the dispatcher's
 * `maxInFlight`, so whatever a dead process leaves leased, to be claimed again after its
 * lease, is at most one window, as with claims alone; and a dispatcher that falls behind (a
 * slow carrier) makes new messages wait in the store's queue instead of in memory.
 *
 * The second cell closes the window to hand-offs: set while this process's live carrier
 * takes no work (in a cluster, another process holds the binds), so what its HTTP side
 * accepts is queued in the store for the binds' owners to claim.
 */
export class DispatchWindow {
  private readonly cell: Int32Array;

  constructor(
    readonly limit: number,
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8),
  ) {
    this.cell = new Int32Array(buffer);
  }

  /** Takes room for n messages, all or nothing. */
  reserve(n: number): boolean {
    if (n <= 0) return true;
    if (Atomics.add(this.cell, 0, n) + n <= this.limit) return true;
    Atomics.sub(this.cell, 0, n);
    return false;
  }

  /** Takes room for n messages handed off by the HTTP side: none while the window is closed to hand-offs. */
  reserveHanded(n: number): boolean {
    if (Atomics.load(this.cell, 1) === 1) return n <= 0;
    return this.reserve(n);
  }

  /** Closes the window to hand-offs (or opens it again). */
  closeToHandoffs(closed: boolean): void {
    Atomics.store(this.cell, 1, closed ? 1 : 0);
  }

  release(n: number): void {
    if (n > 0) Atomics.sub(this.cell, 0, n);
  }

  /** Messages reserved and not yet settled. */
  used(): number {
    return Atomics.load(this.cell, 0);
  }
}
