/**
 * Retention: what the store removes once it is older than the provider keeps
 * data, a small batch at a time. Only finished data goes (docs/decisions.md, Retention):
 * messages delivered, failed, expired or cancelled, with their parts; sends with no message
 * left, with their short links and clicks; refunds' once-only keys (their ledger rows stay);
 * webhook events delivered or given up, with their attempts; inbound messages; receipts
 * that never matched a message; idempotency keys; one-time codes (their keyed hashes and
 * sealed texts) whose message is finished or gone, the OTP guard's refusals, and the
 * conversion watch's holds once released (a standing hold stays, however old). The panel's
 * daily rollups stay.
 */

/** What one batch removes from. */
export type RetentionTable =
  | 'webhook_events'
  | 'messages'
  | 'sends'
  | 'inbound_messages'
  | 'unmatched_reports'
  | 'idempotency_keys'
  | 'otp_codes'
  | 'otp_refusals'
  | 'otp_holds'
  | 'refunds';

/** Every table, in the order a sweep takes them (a send goes once its messages are gone). */
export const retentionTables: readonly RetentionTable[] = [
  'webhook_events',
  'messages',
  'sends',
  'inbound_messages',
  'unmatched_reports',
  'idempotency_keys',
  'otp_codes',
  'otp_refusals',
  'otp_holds',
  'refunds',
];

export interface RetentionStep {
  /** Rows removed by this batch (parts, attempts and send rollups not counted). */
  removed: number;
  /** Where the next batch of this table starts (pass it back as `after`); null: nothing older is left. */
  next: number | null;
}

export interface RetentionStore {
  /**
   * One batch, in one short transaction: removes at most `limit` rows of `table` older than
   * `before` (epoch ms) among those after `after` (an id, 0 at first; tables without ids
   * ignore it), and says where to go on.
   */
  removeBatch(table: RetentionTable, before: number, after: number, limit: number): Promise<RetentionStep>;
  /**
   * Where the store partitions its large tables (PostgreSQL's messages): makes partitions
   * ahead of the ids, `widthIds` ids each, and drops whole those whose every row would be
   * removed (finished, older than `before`, of a finished send). Nothing elsewhere.
   * `stopping`: asked between batches of a drop's work; true leaves the rest to the next sweep.
   */
  keepPartitions(
    before: number,
    widthIds: number,
    stopping?: () => boolean,
  ): Promise<{ created: number; dropped: number }>;
  /**
   * Runs `work` unless another process runs a sweep of the same store now (PostgreSQL: an
   * advisory lock held for the sweep; SQLite: always runs). Resolves false when it did not run.
   */
  exclusively(work: () => Promise<void>): Promise<boolean>;
}
