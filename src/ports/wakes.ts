/**
 * Wakes between processes that share a store (docs/decisions.md, "Cluster"): a process that
 * commits work for a job and runs no thread of its own for it tells the job threads of the
 * other processes, so they claim at once instead of at their next poll. A wake lost costs a
 * delay to the next poll, never work.
 */

/**
 * The job thread a wake is for: `dispatch` (the dispatcher and the jobs beside it) or
 * `webhooks` (the webhook courier). Between processes a wake names the thread (NOTIFY's
 * payload); within one it names a channel (WakeChannel).
 */
export type WakeJob = 'dispatch' | 'webhooks';

/**
 * What a wake says happened: each job of the job table (composition/jobs.ts) names the
 * channels it is woken by, and the runtime relays a channel to the threads of those jobs.
 * - `messages.accepted`: sends were committed for the dispatcher to claim (this process's
 *   HTTP thread, or another process's NOTIFY);
 * - `messages.handed`: messages were handed off to this process's dispatcher (after their commit);
 * - `outcomes.written`: the dispatch thread wrote events with what it recorded (a submit's
 *   answer, a receipt, an expiry, an inbound message);
 * - `events.written`: the API's services wrote events (an OTP verified, a short link
 *   clicked), or another process did (its NOTIFY).
 */
export type WakeChannel = 'messages.accepted' | 'messages.handed' | 'outcomes.written' | 'events.written';

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
