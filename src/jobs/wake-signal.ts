/** Wakes a sleeping claim loop early (new work was committed in this process). */
export class WakeSignal {
  private waiter: (() => void) | null = null;
  private pending = false;
  private relay: (() => void) | null = null;

  /**
   * Hands every later notify to `target` instead (the loop lives in another thread), at
   * most once per turn of the event loop: one message carries all the commits of a turn.
   */
  relayTo(target: () => void): void {
    let queued = false;
    this.relay = () => {
      if (queued) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        target();
      });
    };
  }

  notify(): void {
    if (this.relay) {
      this.relay();
      return;
    }
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
