/**
 * Flow control for one SMPP connection: at most `windowSize` submit_sm awaiting their
 * resp, and submits spaced at least 1000 / maxSubmitsPerSecond ms apart (pacing, no
 * bursts), which keeps us under the SMSC's per-second throttle rather than probing it.
 */

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

export class SubmitGate {
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];
  private nextSlotAt = 0;
  private readonly spacingMs: number;

  constructor(
    private readonly windowSize: number,
    maxSubmitsPerSecond: number,
  ) {
    this.spacingMs = 1000 / maxSubmitsPerSecond;
  }

  get pending(): number {
    return this.inFlight;
  }

  /**
   * Takes a window slot and then a pacing slot. Resolves false, holding nothing, when
   * `deadline` (epoch ms) passes first. A true answer must be paired with release().
   */
  async acquire(deadline: number): Promise<boolean> {
    if (!(await this.takeWindow(deadline))) return false;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlotAt);
    if (slot > deadline) {
      this.release();
      return false;
    }
    this.nextSlotAt = slot + this.spacingMs;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
    return true;
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant();
    } else {
      this.inFlight = Math.max(0, this.inFlight - 1);
    }
  }

  /** A released slot passes straight to the oldest waiter, so inFlight never exceeds the window. */
  private takeWindow(deadline: number): Promise<boolean> {
    if (this.inFlight < this.windowSize) {
      this.inFlight++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => resolve(true),
        timer: setTimeout(
          () => {
            const i = this.waiters.indexOf(waiter);
            if (i !== -1) this.waiters.splice(i, 1);
            resolve(false);
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiters.push(waiter);
    });
  }
}
