/**
 * SQLite's write lock, as seen by the threads of one process (the HTTP thread and the
 * delivery thread): a cell of shared memory taken before BEGIN IMMEDIATE and given back
 * after COMMIT or ROLLBACK. A thread that finds it taken is woken by the holder the moment
 * it is released, with its event loop running meanwhile, instead of polling SQLite (each
 * failed BEGIN costs an exception) or sleeping in SQLite's busy handler. Other processes
 * (the admin CLI, a second server) are still met by SQLite's own lock.
 */

type WaitResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
// Atomics.waitAsync is in Node 16+ (V8); TypeScript declares it only from lib ES2024.
const waitAsync = (Atomics as unknown as { waitAsync(cell: Int32Array, index: number, value: number, timeoutMs: number): WaitResult }).waitAsync;

const free = 0;
const held = 1;
/** Cells of the buffer: the lock, and how many threads are waiting for it. */
const lockCell = 0;
const waitersCell = 1;

export class ThreadWriteLock {
  private readonly cell: Int32Array;

  /** The shared buffer: pass it to the other thread (workerData) to share the lock. */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new Int32Array(buffer);
  }

  /** Takes the lock; false when it stayed taken until `deadline` (epoch ms). */
  async acquire(deadline: number): Promise<boolean> {
    while (Atomics.compareExchange(this.cell, lockCell, free, held) !== free) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      Atomics.add(this.cell, waitersCell, 1);
      try {
        const waited = waitAsync(this.cell, lockCell, held, left);
        if (waited.async) {
          // A pending waitAsync does not keep the event loop alive; this timer does, a little
          // past the wait's own timeout so that its answer is still taken.
          const keepAlive = setTimeout(() => undefined, left + 100);
          try {
            await waited.value;
          } finally {
            clearTimeout(keepAlive);
          }
        }
      } finally {
        Atomics.sub(this.cell, waitersCell, 1);
      }
    }
    return true;
  }

  release(): void {
    Atomics.store(this.cell, lockCell, free);
    // Waking is a system call: made only when a thread waits (most releases find none).
    if (Atomics.load(this.cell, waitersCell) > 0) Atomics.notify(this.cell, lockCell, 1);
  }
}
