import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * A read-only connection to a running server's SQLite store (WAL: it never blocks the
 * server's writes), for watching messages move through the pipeline from outside.
 */
export class StoreReader {
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, 'haberci.sqlite'), { readonly: true, fileMustExist: true });
  }

  /** Messages by state (queued, submitting, sent, delivered, failed, expired). */
  statesOf(sendId?: number): Record<string, number> {
    const rows = (
      sendId === undefined
        ? this.db.prepare('SELECT state, count(*) AS n FROM messages GROUP BY state').all()
        : this.db.prepare('SELECT state, count(*) AS n FROM messages WHERE send_id = ? GROUP BY state').all(sendId)
    ) as { state: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  /** Messages that have left the queue: the carrier has answered their submit. */
  submitted(sendId?: number): number {
    const s = this.statesOf(sendId);
    return (s.sent ?? 0) + (s.delivered ?? 0) + (s.failed ?? 0) + (s.expired ?? 0);
  }

  /** Messages with a final state. */
  final(sendId?: number): number {
    const s = this.statesOf(sendId);
    return (s.delivered ?? 0) + (s.failed ?? 0) + (s.expired ?? 0);
  }

  /** Which of these message ids the store holds. */
  existing(ids: readonly number[]): number {
    const statement = this.db.prepare(
      'SELECT count(*) AS n FROM messages WHERE id IN (SELECT value FROM json_each(?))',
    );
    let found = 0;
    for (let i = 0; i < ids.length; i += 10_000)
      found += (statement.get(JSON.stringify(ids.slice(i, i + 10_000))) as { n: number }).n;
    return found;
  }

  close(): void {
    this.db.close();
  }
}
