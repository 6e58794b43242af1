/**
 * The deriver of the panel's rollups (docs/decisions.md, "Rollups after the commit"): the
 * writes of messages queue their sums in their own transactions (one row each); this job adds
 * them to `daily_counts` and `send_counts` after the commit, a batch per transaction, each
 * transaction deleting the rows it added. Runs in the dispatch thread of a process with
 * `--worker` (beside retention and the OTP watch): a round `gatherMs` after a wake (a commit
 * of this process, a hand-off, another process's NOTIFY), and every `everyMs` anyway; on
 * PostgreSQL one process's deriver at a time takes a round, the others skip it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { DerivedCounts } from '../ports/derived-counts.js';
import { errorFields } from '../util/error-fields.js';

export interface CountDeriverOptions {
  /** Time between rounds when nothing wakes the deriver. */
  everyMs: number;
  /** Pause after a wake before the round, so that one round carries the commits of many requests. */
  gatherMs: number;
  /** Queued rows one transaction derives at most. */
  batch: number;
}

export const defaultCountDeriverOptions: CountDeriverOptions = { everyMs: 1_000, gatherMs: 100, batch: 200 };

export class CountDeriver {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  /** A wake came while a round ran: the next round follows after `gatherMs`, not `everyMs`. */
  private wokenMeanwhile = false;
  /** When the round now planned starts (epoch of `performance.now()`), to let a wake bring it forward only. */
  private dueAt = Infinity;

  constructor(
    private readonly store: DerivedCounts,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: CountDeriverOptions = defaultCountDeriverOptions,
  ) {}

  start(): void {
    this.stopping = false;
    this.plan(0);
  }

  /** Work was committed: a round within `gatherMs`. */
  wake(): void {
    if (this.running) this.wokenMeanwhile = true;
    else this.plan(this.options.gatherMs);
  }

  /**
   * Ends the timer; a round in progress finishes, then a last one derives what is queued (the
   * dispatcher, stopped first, queued its last outcomes). What is left stays queued for the
   * next start: nothing is lost.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.rounds(() => false);
  }

  private plan(inMs: number): void {
    if (this.stopping || this.running) return;
    const at = performance.now() + inMs;
    if (this.timer && at >= this.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dueAt = Infinity;
      this.running = this.roundsUntilDrained().then(() => {
        this.running = null;
        const woken = this.wokenMeanwhile;
        this.wokenMeanwhile = false;
        this.plan(woken ? this.options.gatherMs : this.options.everyMs);
      });
    }, inMs);
    this.timer.unref();
  }

  /** Rounds while each finds a full batch; never throws (a failed round is tried at the next). */
  roundsUntilDrained(): Promise<number> {
    return this.rounds(() => this.stopping);
  }

  private async rounds(stopped: () => boolean): Promise<number> {
    let derived = 0;
    try {
      for (;;) {
        if (stopped()) break;
        const round = await this.store.deriveRollups(this.options.batch, this.clock.now());
        derived += round.derived;
        if (round.busy || round.derived < this.options.batch) break;
      }
    } catch (error) {
      this.log.warn({ err: errorFields(error) }, 'rollups: a round of the deriver failed; trying again at the next');
    }
    return derived;
  }
}
