/** The dispatcher's options, their defaults, and its retry backoff. */

export interface DispatcherOptions {
  /** Messages claimed per store round trip. */
  batchSize: number;
  /** Submits awaiting the carrier's answer at once. */
  maxInFlight: number;
  /**
   * A claimed message returns to the queue if its dispatcher has not settled it by then. A
   * live dispatcher extends the leases of the messages it holds every third of this (the
   * heartbeat), so the lease bounds the wait after a dispatcher dies, not the slowest submit.
   */
  leaseMs: number;
  /** Poll interval when the queue is empty (another process may add work). */
  idleMs: number;
  /**
   * After a claim that found fewer due messages than it asked for, how long to let more
   * gather before claiming again (new sends do not cut it short): each claim transaction
   * then carries more messages. The most it adds to a message's wait for its submit; 5 ms by default.
   */
  gatherMs: number;
  /**
   * How long submit outcomes and receipts wait for more before they are written together.
   * Every transaction of this thread makes the HTTP thread's connection read its pages
   * afresh, and at full load each one carried about a dozen items with no wait.
   */
  writeGatherMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** A message refused this many times in a row for passing reasons is failed. */
  maxAttempts: number;
  maintenanceMs: number;
  /**
   * The share of the live carrier's capacity one account's interactive messages may hold
   * at once; the rest of its interactive messages wait in the bulk lane (LaneScheduler).
   */
  interactiveShare: number;
  /**
   * While claimed messages wait in the lanes for the carrier, how often the dispatcher asks
   * whether their sends were paused or cancelled since, and gives those back unsubmitted: a
   * cancel's answer waits for this (docs/decisions.md, "Campaign controls").
   */
  controlCheckMs: number;
}

/** Submit outcomes or reports written in one transaction at most. */
export const maxWriteBatch = 500;

export const defaultDispatcherOptions: DispatcherOptions = {
  batchSize: 200,
  maxInFlight: 400,
  leaseMs: 15_000,
  idleMs: 200,
  gatherMs: 5,
  writeGatherMs: 10,
  retryBaseMs: 1_000,
  retryMaxMs: 60_000,
  maxAttempts: 500,
  maintenanceMs: 2_000,
  interactiveShare: 0.5,
  controlCheckMs: 100,
};

/** Backoff for passing refusals: doubling from the base, capped. */
export function retryDelay(
  attempt: number,
  options: Pick<DispatcherOptions, 'retryBaseMs' | 'retryMaxMs'>,
  hintMs?: number,
): number {
  const exp = options.retryBaseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 20);
  return Math.max(hintMs ?? 0, Math.min(exp, options.retryMaxMs));
}
