import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { keepMessagePartitions } from './partitions.js';
import { countInOneStatement } from './request-counts.js';
import type { DialectSql } from '../dialect-sql.js';
import { preparedQuery } from '../prepared-query.js';
import { wakeChannel } from './wake-channel.js';

/** `count` values of the id sequence (migration 0002). */
const nextIds = preparedQuery(
  (db, p: { count: number }) => ({
    compile: () =>
      sql<{ id: number }>`SELECT nextval('haberci_ids')::int8 AS id FROM generate_series(1, ${p.count})`.compile(db),
  }),
  ['count'],
);

/** PostgreSQL: several writers at once, so reads that decide a write lock their rows. */
export const postgresSql: DialectSql = {
  dialect: 'postgres',
  locksRows: true,
  sharedByProcesses: true,
  batchesReads: true,
  forUpdate: (query) => query.forUpdate(),
  forShare: (query) => query.forShare(),
  claim: (query) => query.forUpdate().skipLocked(),
  claimClause: sql`for update skip locked`,
  unindexed: (column) => sql.ref(column),
  async wake(db, job) {
    await sql`select pg_notify(${wakeChannel}, current_schema() || ':' || ${job})`.execute(db);
  },
  countRequests: (db, items) => countInOneStatement(db, items),
  textList: (values) => sql<string>`(select unnest(${[...values]}::text[]))`,
  textRows: (rows, width) => {
    const columns = Array.from({ length: width }, (_, i) => i);
    return sql`(select * from unnest(${sql.join(
      columns.map((i) => sql`${rows.map((row) => row[i] ?? '')}::text[]`),
    )}) as x(${sql.join(columns.map((i) => sql.ref(`c${i}`)))}))`;
  },
  keepPartitions: (db, before, widthIds, stopping) =>
    keepMessagePartitions(db as Kysely<Database>, before, widthIds, stopping),
  async exclusively(db, name, work) {
    // A session lock on one connection of the pool, kept while `work` runs on others: it
    // goes with the connection if that breaks. Keyed by the schema too, as stores in
    // several schemas of one database are separate stores.
    return (db as Kysely<Database>).connection().execute(async (held) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_lock(hashtext(${name}), hashtext(current_schema())) as locked`.execute(held);
      if (rows[0]?.locked !== true) return false;
      try {
        await work();
        return true;
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${name}), hashtext(current_schema()))`
          .execute(held)
          .catch(() => undefined);
      }
    });
  },
  async allocateIds(db, count) {
    if (count <= 0) return [];
    const result = await db.executeQuery(nextIds(db, { count }));
    return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  },
};
