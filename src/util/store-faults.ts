/**
 * Faults of the store that say "again, later" rather than "a bug": the disk under SQLite is
 * full, or fails to write. The API answers them 503 with Retry-After in its envelope
 * (SRV-ERR); anything else unexpected stays a 500 (PostgreSQL away or silent included: the
 * spec's SRV-ERR, docs/operations.md).
 */
export type StoreFault = 'disk-full' | 'write-error';

export function storeFault(error: unknown): StoreFault | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL') return 'disk-full';
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return 'write-error';
  return null;
}
