import { sql } from 'kysely';
import type { DialectSql } from '../dialect-sql.js';
import { preparedQuery } from '../prepared-query.js';

/** `count` values of the id sequence (migration 0002). */
const nextIds = preparedQuery((db, p: { count: number }) => ({ compile: () => sql<{ id: number }>`SELECT nextval('haberci_ids')::int8 AS id FROM generate_series(1, ${p.count})`.compile(db) }), ['count']);

/** PostgreSQL: several writers at once, so reads that decide a write lock their rows. */
export const postgresSql: DialectSql = {
  dialect: 'postgres',
  locksRows: true,
  forUpdate: (query) => query.forUpdate(),
  forShare: (query) => query.forShare(),
  claim: (query) => query.forUpdate().skipLocked(),
  async allocateIds(db, count) {
    if (count <= 0) return [];
    const result = await db.executeQuery(nextIds(db, { count }));
    return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  },
};
