/**
 * The provider console's traffic per minute, counted without a write per message: each
 * thread counts its messages' steps in memory, by minute, and writes one row per minute it
 * saw traffic in (store.monitoring.addTraffic), every `flushMs` and when it stops. A row
 * belongs to its `source` (a thread of a process), so the threads and processes of one store
 * each write their own and the console sums them. Rows older than `keepMinutes` are dropped
 * once an hour.
 */
import type { MessageMetrics, MessageOutcome } from '../ports/metrics.js';
import type { TrafficMinute, TrafficStore } from '../ports/monitoring-store.js';

export const minuteMs = 60_000;

export interface TrafficCounterOptions {
  flushMs: number;
  keepMinutes: number;
}

export const defaultTrafficOptions: TrafficCounterOptions = { flushMs: 60_000, keepMinutes: 7 * 24 * 60 };

const emptyMinute = (minute: number): TrafficMinute => ({
  minute,
  accepted: 0,
  submitted: 0,
  delivered: 0,
  failed: 0,
  expired: 0,
});

export class TrafficCounter implements MessageMetrics {
  /** The minutes counted and not yet written, the current one last. */
  private pending: TrafficMinute[] = [];
  private current: TrafficMinute | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastForget = 0;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<TrafficStore, 'addTraffic' | 'forgetTrafficBefore'>,
    private readonly source: string,
    private readonly now: () => number,
    private readonly options: TrafficCounterOptions = defaultTrafficOptions,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  messages(outcome: MessageOutcome, count: number): void {
    const minute = Math.floor(this.now() / minuteMs);
    let current = this.current;
    if (current === null || current.minute !== minute) {
      current = emptyMinute(minute);
      this.pending.push(current);
      this.current = current;
    }
    current[outcome] += count;
  }

  /** Writes every minute counted so far (the current one too: a later write of it adds up). */
  flush(): Promise<void> {
    const minutes = this.pending;
    this.pending = [];
    this.current = null;
    const now = this.now();
    const forget = now - this.lastForget >= 3600_000;
    if (forget) this.lastForget = now;
    this.writing = this.writing.then(async () => {
      try {
        await this.store.addTraffic(this.source, minutes);
        if (forget) await this.store.forgetTrafficBefore(Math.floor(now / minuteMs) - this.options.keepMinutes);
      } catch (error) {
        // The counts of this flush are lost; the console shows a dip, nothing else depends on them.
        this.onError(error);
      }
    });
    return this.writing;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
