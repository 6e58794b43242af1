/** Wakes a sleeping worker loop early (new work was committed in this process). */
export class WakeSignal {
  private waiter: (() => void) | null = null;
  private pending = false;

  notify(): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w();
    } else {
      this.pending = true;
    }
  }

  /** Resolves after `ms`, or at once when notified (also by a notify that came before). */
  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
