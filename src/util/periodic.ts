/**
 * A round of work run again and again: first after `firstInMs`, then `everyMs` after the
 * previous round ended (never two at once), until stopped. `stopping` tells a long round
 * to end early, between its steps; `stop()` waits for the round in progress. The timer does
 * not keep the process alive. The periodic jobs of the dispatch thread (the retention
 * sweeper, the OTP conversion watch, the İYS sync) each run on one.
 */
export class Periodic {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  /** `round` should not throw: a round that does is logged by no one and simply tried again. */
  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly everyMs: number,
  ) {}

  /** Whether stop() was called: a round checks it between its steps. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(firstInMs: number): void {
    this.schedule(firstInMs);
  }

  /** No round starts after this; resolves when the one in progress has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(inMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const next = (): void => {
        this.running = null;
        this.schedule(this.everyMs);
      };
      this.running = this.round().then(next, next);
    }, inMs);
    this.timer.unref();
  }
}
