/**
 * The general per-key request rate counted in the store, for the processes of a cluster that
 * share a PostgreSQL store without `--redis` (docs/decisions.md, "General request rate").
 */
import type { RateTally } from './rate-counter.js';

/** The store's tally of the shared rate, and the sweep of its windows long over. */
export interface SharedRateTally extends RateTally {
  /** Deletes windows that ended a while ago; answers how many. */
  sweep(): Promise<number>;
}

export interface SharedRate {
  /** The tally on this store: PostgreSQL only (SQLite's one process counts in its memory); throws elsewhere. */
  counter(): SharedRateTally;
}
