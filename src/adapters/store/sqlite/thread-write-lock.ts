/**
 * SQLite's write lock, as seen by the threads of one process (the HTTP thread and the
 * job thread): taken before BEGIN IMMEDIATE and given back after COMMIT or ROLLBACK.
 * A thread that finds it taken is woken by the holder the moment it is released, with its
 * event loop running meanwhile, instead of polling SQLite (each failed BEGIN costs an
 * exception) or sleeping in SQLite's busy handler. Other processes (the admin CLI, a
 * second server) are still met by SQLite's own lock.
 *
 * It is a ticket lock, so threads take turns: the job thread, which runs transaction
 * after transaction, cannot take the lock again while the HTTP thread waits for it.
 *
 * And the HTTP thread (foreground) goes first: a job thread (background) asks for
 * the lock only once the foreground has neither waited for it nor held it for
 * backgroundGapMs, or after its `yieldMs` (serve's --delivery-yield-ms) at most. Under a burst of sends the
 * answers are not held behind dispatching; delivery then takes larger batches less often
 * (a claim is up to 200 messages, a write up to 500 outcomes), and catches up after it.
 */

type WaitResult =
  { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
// Atomics.waitAsync is in Node 16+ (V8); TypeScript declares it only from lib ES2024.
const waitAsync = (
  Atomics as unknown as { waitAsync(cell: Int32Array, index: number, value: number, timeoutMs: number): WaitResult }
).waitAsync;

/**
 * Cells of the buffer: the next ticket to hand out, the ticket whose turn it is, how many
 * foreground requests wait for it or hold it, and when (ms, low 31 bits) the foreground last released it.
 */
const nextCell = 0;
const servingCell = 1;
const foregroundActiveCell = 2;
const foregroundReleasedCell = 3;
/** When (ms, low 31 bits) the lock last changed hands. */
const handedOnCell = 4;
const cells = 5;

/**
 * Who asks: the HTTP thread (foreground) or a job thread (background), which waits
 * while the foreground is busy for at most `yieldMs` (0: it does not wait).
 */
export type LockRole = { role: 'foreground' } | { role: 'background'; yieldMs: number };

/** The background waits until the foreground has been idle this long, or `yieldMs` at most. */
export const backgroundGapMs = 5;

const lowBits = (ms: number): number => ms & 0x7fffffff;
const since = (now: number, then: number): number => (lowBits(now) - then) & 0x7fffffff;

export class ThreadWriteLock {
  private readonly cell: Int32Array;

  /**
   * The shared buffer: pass it to the other thread (workerData) to share the lock.
   * `onWait`: told of every wait of this holder for the lock, in seconds, from asking to
   * taking, the background's yield included (metrics); null: not timed.
   */
  constructor(
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(cells * 4),
    private readonly who: LockRole = { role: 'foreground' },
    private readonly onWait: ((seconds: number) => void) | null = null,
  ) {
    // A buffer too small for the cells would throw from inside a wait and leave the lock
    // held for ever; refuse it here instead.
    if (buffer.byteLength < cells * 4) throw new Error(`the write lock needs a buffer of ${cells * 4} bytes`);
    this.cell = new Int32Array(buffer);
  }

  /** Background only: lets the foreground go first while it is busy, up to `yieldMs`. */
  private async yieldToForeground(yieldMs: number): Promise<void> {
    const started = Date.now();
    for (;;) {
      const now = Date.now();
      if (now - started >= yieldMs) return;
      const idle =
        Atomics.load(this.cell, foregroundActiveCell) === 0 &&
        since(now, Atomics.load(this.cell, foregroundReleasedCell)) >= backgroundGapMs;
      if (idle) return;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /**
   * Takes the lock; false when its turn came only after `deadline` (epoch ms). A ticket
   * cannot leave the queue, so a late turn is taken and handed on at once.
   */
  async acquire(deadline: number): Promise<boolean> {
    const observer = this.onWait;
    if (observer === null) return this.acquireUntimed(deadline);
    const asked = performance.now();
    try {
      return await this.acquireUntimed(deadline);
    } finally {
      observer((performance.now() - asked) / 1000);
    }
  }

  private async acquireUntimed(deadline: number): Promise<boolean> {
    if (this.who.role === 'background') {
      await this.yieldToForeground(this.who.yieldMs);
      return this.take(deadline);
    }
    // Counted from asking until release: the foreground is busy while it waits or holds.
    Atomics.add(this.cell, foregroundActiveCell, 1);
    let taken = false;
    try {
      taken = await this.take(deadline);
      return taken;
    } finally {
      if (!taken) Atomics.sub(this.cell, foregroundActiveCell, 1);
    }
  }

  private async take(deadline: number): Promise<boolean> {
    const ticket = Atomics.add(this.cell, nextCell, 1);
    // Taken at once from a free lock: it changes hands now.
    if (Atomics.load(this.cell, servingCell) === ticket) Atomics.store(this.cell, handedOnCell, lowBits(Date.now()));
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
    this.handOn();
    return false;
  }

  release(): void {
    if (this.who.role === 'foreground') {
      Atomics.store(this.cell, foregroundReleasedCell, lowBits(Date.now()));
      Atomics.sub(this.cell, foregroundActiveCell, 1);
    }
    this.handOn();
  }

  /**
   * How long the lock has been held, with others waiting or not, without changing hands
   * (ms); 0 while it is free. A transaction holds it for milliseconds: one held for many
   * seconds is a holder that will not give it back (the liveness probe's check).
   */
  heldMs(): number {
    if (Atomics.load(this.cell, nextCell) === Atomics.load(this.cell, servingCell)) return 0;
    return since(Date.now(), Atomics.load(this.cell, handedOnCell));
  }

  /** Gives the turn to the next ticket. */
  private handOn(): void {
    Atomics.store(this.cell, handedOnCell, lowBits(Date.now()));
    const serving = Atomics.add(this.cell, servingCell, 1) + 1;
    // Waking is a system call: made only when a ticket is waiting for its turn.
    if (Atomics.load(this.cell, nextCell) !== serving) Atomics.notify(this.cell, servingCell);
  }
}
