import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** SQLite's statements, prepared once per text, and whether each one writes. */
export interface StatementCache extends SqliteDatabase {
  /** True when the statement of this text changes the database (BEGIN, COMMIT and reads do not). */
  writes(text: string): boolean;
}

/**
 * Kysely prepares every query afresh; parsing SQL is a large share of a query's cost on
 * SQLite, so prepared statements are kept by their text (bounded, cleared when full).
 * Whether a statement writes is SQLite's own answer (`readonly`), not a reading of its text.
 */
export function statementCache(sqlite: BetterSqlite3.Database, limit = 2000): StatementCache {
  const cache = new Map<string, { statement: SqliteStatement; writes: boolean }>();
  const entry = (text: string): { statement: SqliteStatement; writes: boolean } => {
    let found = cache.get(text);
    if (!found) {
      const statement = sqlite.prepare(text);
      // `reader` is true for INSERT ... RETURNING too: `readonly` tells a write.
      found = { statement, writes: !statement.readonly };
      if (cache.size >= limit) cache.clear();
      cache.set(text, found);
    }
    return found;
  };
  return {
    close: () => sqlite.close(),
    prepare: (text) => entry(text).statement,
    writes: (text) => entry(text).writes,
  };
}
