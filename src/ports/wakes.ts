/**
 * Wakes between processes that share a store (docs/decisions.md, "Cluster"): a process that
 * commits work for a job and runs no thread of its own for it tells the job threads of the
 * other processes, so they claim at once instead of at their next poll. A wake lost costs a
 * delay to the next poll, never work.
 */

/** The job a wake is for: the dispatcher (messages) or the webhook courier (events). */
export type WakeJob = 'dispatch' | 'webhooks';

/** The sending side, on the store (PostgreSQL's NOTIFY; nothing on SQLite, where one process serves). */
export interface Wakes {
  /** Whether wakes reach other processes at all (PostgreSQL). */
  readonly shared: boolean;
  /** Wakes `job` in every process listening on this store; sent after the commit it tells of. */
  notify(job: WakeJob): Promise<void>;
}

/** A job thread listening for other processes' wakes, on a connection of its own. */
export interface WakeListener {
  stop(): Promise<void>;
}
