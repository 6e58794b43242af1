import { sql } from 'kysely';
import type { DialectSql, Lockable } from '../dialect-sql.js';
import { preparedQuery } from '../prepared-query.js';

/** Advances the id counter (migration 0002) by `count` and answers where it ends. */
const advanceIds = preparedQuery(
  (db, p: { count: number }) =>
    db
      .updateTable('id_counter')
      .set({ next_id: sql`next_id + ${p.count}` })
      .where('name', '=', 'ids')
      .returning('next_id'),
  ['count'],
);

const asIs = <Q extends Lockable<Q>>(query: Q): Q => query;

/** SQLite: one writer at a time (BEGIN IMMEDIATE), so nothing is locked row by row. */
export const sqliteSql: DialectSql = {
  dialect: 'sqlite',
  locksRows: false,
  sharedByProcesses: false,
  batchesReads: false,
  forUpdate: asIs,
  forShare: asIs,
  claim: asIs,
  claimClause: sql``,
  unindexed: (column) => sql`+${sql.ref(column)}`,
  wake: () => Promise.resolve(),
  keepPartitions: () => Promise.resolve({ created: 0, dropped: 0 }),
  countRequests: () => Promise.resolve(null),
  textList: (values) => sql<string>`(select value from json_each(${JSON.stringify(values)}))`,
  textRows: (rows, width) =>
    sql`(select ${sql.join(
      Array.from({ length: width }, (_, i) => sql`json_extract(value, ${`$[${i}]`}) as ${sql.ref(`c${i}`)}`),
    )} from json_each(${JSON.stringify(rows)}))`,
  async exclusively(_db, _name, work) {
    await work();
    return true;
  },
  async allocateIds(db, count) {
    if (count <= 0) return [];
    const row = (await db.executeQuery(advanceIds(db, { count }))).rows[0];
    if (!row) throw new Error('the id counter is missing');
    const end = Number(row.next_id);
    return Array.from({ length: count }, (_, i) => end - count + i);
  },
};
