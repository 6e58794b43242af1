import type { Backlog } from './metrics.js';

/**
 * The operations' reads of the store (store.monitoring): the queues' depths for a metrics
 * scrape. Each count is capped (`backlogCap`) so a scrape stays cheap however deep a queue is.
 */
export interface MonitoringStore {
  backlog(now: number): Promise<Backlog>;
}

/** The most a backlog count reads: a deeper queue reads as this many. */
export const backlogCap = 1_000_000;
