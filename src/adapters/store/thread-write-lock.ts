/**
 * SQLite's write lock, as seen by the threads of one process (the HTTP thread and the
 * delivery thread): taken before BEGIN IMMEDIATE and given back after COMMIT or ROLLBACK.
 * A thread that finds it taken is woken by the holder the moment it is released, with its
 * event loop running meanwhile, instead of polling SQLite (each failed BEGIN costs an
 * exception) or sleeping in SQLite's busy handler. Other processes (the admin CLI, a
 * second server) are still met by SQLite's own lock.
 *
 * It is a ticket lock, so threads take turns: the delivery thread, which runs transaction
 * after transaction, cannot take the lock again while the HTTP thread waits for it.
 */

type WaitResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
// Atomics.waitAsync is in Node 16+ (V8); TypeScript declares it only from lib ES2024.
const waitAsync = (Atomics as unknown as { waitAsync(cell: Int32Array, index: number, value: number, timeoutMs: number): WaitResult }).waitAsync;

/** Cells of the buffer: the next ticket to hand out, and the ticket whose turn it is. */
const nextCell = 0;
const servingCell = 1;

export class ThreadWriteLock {
  private readonly cell: Int32Array;

  /** The shared buffer: pass it to the other thread (workerData) to share the lock. */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new Int32Array(buffer);
  }

  /**
   * Takes the lock; false when its turn came only after `deadline` (epoch ms). A ticket
   * cannot leave the queue, so a late turn is taken and handed on at once.
   */
  async acquire(deadline: number): Promise<boolean> {
    const ticket = Atomics.add(this.cell, nextCell, 1);
    for (;;) {
      const serving = Atomics.load(this.cell, servingCell);
      if (serving === ticket) break;
      // Past the deadline the turn is still waited for (to be handed on), a second at a time.
      const left = deadline - Date.now();
      const timeoutMs = left > 0 ? left : 1000;
      const waited = waitAsync(this.cell, servingCell, serving, timeoutMs);
      if (!waited.async) continue;
      // A pending waitAsync does not keep the event loop alive; this timer does, a little
      // past the wait's own timeout so that its answer is still taken.
      const keepAlive = setTimeout(() => undefined, timeoutMs + 100);
      try {
        await waited.value;
      } finally {
        clearTimeout(keepAlive);
      }
    }
    if (Date.now() <= deadline) return true;
    this.release();
    return false;
  }

  release(): void {
    const serving = Atomics.add(this.cell, servingCell, 1) + 1;
    // Waking is a system call: made only when a ticket is waiting for its turn.
    if (Atomics.load(this.cell, nextCell) !== serving) Atomics.notify(this.cell, servingCell);
  }
}
