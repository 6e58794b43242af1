/**
 * Derived data written after the commit (docs/decisions.md, "Rollups after the commit"):
 * the panel's rollups (`daily_counts`, `send_counts`) are summed from what the writes of
 * messages queued in their own transactions, by a deriver off the request path
 * (src/jobs/count-deriver.ts).
 */

/** What one round of a derivation did. */
export interface DerivedRound {
  /** Queued rows derived (and removed) by this round's transaction. */
  derived: number;
  /** Another deriver (another process) held the derivation: this round did nothing. */
  busy: boolean;
}

export interface DerivedCounts {
  /**
   * One transaction: takes the derivation's row (PostgreSQL: locked, or skipped when another
   * deriver holds it), reads at most `limit` queued rows, adds their sums to the rollups and
   * deletes those rows. A crash before the commit leaves every row queued; after it, none is
   * counted again.
   */
  deriveRollups(limit: number, now: number): Promise<DerivedRound>;
  /** How many queued rows wait for the deriver (metrics, tests). */
  rollupsPending(): Promise<number>;
}
