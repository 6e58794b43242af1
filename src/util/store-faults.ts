/**
 * Faults of the store that say "again, later" rather than "a bug": the disk under SQLite is
 * full, or fails to write; PostgreSQL cannot be reached, is silent, or ran a statement past
 * its time bound, and nothing of the request can have been committed. The API answers them
 * 503 with Retry-After in its envelope (SRV-ERR). A commit sent and never answered is not
 * one of them: its outcome is unknown (`outcomeUnknown`), and it stays a 500 (docs/decisions.md,
 * "A silent PostgreSQL answered in time").
 */
export type StoreFault = 'disk-full' | 'write-error' | 'unavailable';

/** The store could not be reached or did not answer, and nothing of this work was committed. */
export class StoreUnavailable extends Error {
  readonly code = 'STORE_UNAVAILABLE';
}

/**
 * A COMMIT (or a write outside a transaction) was sent and its answer never came: the store
 * may have made it or not. Never tried again: a second try could make it twice.
 */
export class StoreOutcomeUnknown extends Error {
  readonly code = 'STORE_OUTCOME_UNKNOWN';
}

export function storeFault(error: unknown): StoreFault | null {
  if (error instanceof StoreUnavailable) return 'unavailable';
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL') return 'disk-full';
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return 'write-error';
  // PostgreSQL cancelled a statement past `statement_timeout`: its transaction is rolled back.
  if (code === '57014') return 'unavailable';
  return null;
}

export function outcomeUnknown(error: unknown): boolean {
  return error instanceof StoreOutcomeUnknown;
}
