/**
 * Retention (`--retention-days`): removes finished data older than the cut-off,
 * a small batch per transaction with a pause between, so that no batch holds the store's
 * write lock (SQLite) or many row locks (PostgreSQL) for long and sends go on meanwhile.
 * Runs in the dispatch thread of a process with `--worker`; on PostgreSQL one process of a
 * cluster at a time sweeps (the store's exclusive lock), the others skip that round.
 */
import { Periodic } from '../util/periodic.js';
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import { retentionTables } from '../ports/retention.js';
import type { RetentionStore, RetentionTable } from '../ports/retention.js';
import { errorFields } from '../util/error-fields.js';

export interface RetentionOptions {
  /** Data older than this many days goes. */
  days: number;
  /** Rows a transaction removes at most. */
  batch: number;
  /** Pause after each batch. */
  pauseMs: number;
  /** Time between sweeps (the first starts a few seconds after start-up). */
  everyMs: number;
  /** PostgreSQL: ids a partition of messages spans (made ahead by each sweep). */
  partitionIds: number;
}

const dayMs = 86_400_000;

export class RetentionSweeper {
  private readonly rounds: Periodic;

  constructor(
    private readonly store: RetentionStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: RetentionOptions,
  ) {
    this.rounds = new Periodic(() => this.sweepOnce(), options.everyMs);
  }

  start(firstInMs = Math.min(5_000, this.options.everyMs)): void {
    this.rounds.start(firstInMs);
  }

  /** Ends the sweep in progress after its current batch. */
  stop(): Promise<void> {
    return this.rounds.stop();
  }

  /** One sweep of every table; never throws (a failed sweep is tried again at the next round). */
  async sweepOnce(): Promise<Partial<Record<RetentionTable, number>>> {
    const before = this.clock.now() - this.options.days * dayMs;
    const removed: Partial<Record<RetentionTable, number>> = {};
    const started = performance.now();
    try {
      let partitions = { created: 0, dropped: 0 };
      const ran = await this.store.exclusively(async () => {
        // Whole partitions first: what they drop, no batch has to delete.
        partitions = await this.store.keepPartitions(before, this.options.partitionIds, () => this.rounds.stopping);
        for (const table of retentionTables) {
          let after = 0;
          for (;;) {
            if (this.rounds.stopping) return;
            const step = await this.store.removeBatch(table, before, after, this.options.batch);
            if (step.removed > 0) removed[table] = (removed[table] ?? 0) + step.removed;
            if (step.next === null) break;
            after = step.next;
            await new Promise((resolve) => setTimeout(resolve, this.options.pauseMs));
          }
        }
      });
      if (!ran) this.log.debug('retention: another process sweeps the store now; skipped this round');
      else if (Object.keys(removed).length > 0 || partitions.dropped > 0)
        this.log.info(
          { removed, partitions, before, ms: Math.round(performance.now() - started) },
          'retention: removed data older than the retention period',
        );
      else
        this.log.debug(
          { partitions, before, ms: Math.round(performance.now() - started) },
          'retention: nothing older than the retention period',
        );
    } catch (error) {
      this.log.warn({ err: errorFields(error), removed }, 'retention: a sweep failed; trying again at the next round');
    }
    return removed;
  }
}
