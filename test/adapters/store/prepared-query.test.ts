/**
 * Prepared queries must run exactly what Kysely would have compiled for the same values,
 * on each dialect, for every row count, also after a row count was forgotten; lists run
 * padded with their last value, which an IN list does not tell from the list itself.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import type { Database } from '../../../src/adapters/store/schema.js';
import { columnsOf, preparedList, preparedQuery, preparedRows } from '../../../src/adapters/store/prepared-query.js';

function offline(dialect: 'sqlite' | 'postgres'): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => (dialect === 'sqlite' ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (dialect === 'sqlite' ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (dialect === 'sqlite' ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
  });
}

type Ledger = {
  account_id: number;
  bucket: 'main' | 'international';
  delta: number;
  balance_after: number;
  reason: string;
  reference: string | null;
  created_at: number;
};
const ledgerColumns = columnsOf<Ledger>({
  account_id: true,
  bucket: true,
  delta: true,
  balance_after: true,
  reason: true,
  reference: true,
  created_at: true,
});

function ledgerRows(count: number, seed: number): Ledger[] {
  return Array.from({ length: count }, (_, i) => ({
    account_id: seed + i,
    bucket: i % 2 === 0 ? 'main' : 'international',
    delta: -(seed * 10 + i),
    balance_after: seed * 100 + i,
    reason: `reason ${seed}/${i}`,
    reference: i % 3 === 0 ? null : `send:${seed}-${i}`,
    created_at: 1_700_000_000_000 + i,
  }));
}

describe('prepared queries', () => {
  const sqlite = offline('sqlite');
  const postgres = offline('postgres');

  it('multi-row inserts: the SQL and parameters Kysely compiles, per dialect and row count', () => {
    const insert = preparedRows((db, rows: Ledger[]) => db.insertInto('ledger').values(rows), ledgerColumns, 2);
    for (const [seed, count] of [
      [1, 1],
      [2, 3],
      [3, 1],
      [4, 5],
      [5, 3],
      [6, 1],
    ] as const) {
      for (const db of [sqlite, postgres]) {
        const rows = ledgerRows(count, seed);
        const expected = db.insertInto('ledger').values(rows).compile();
        const actual = insert(db, rows);
        assert.equal(actual.sql, expected.sql);
        assert.deepEqual(actual.parameters, expected.parameters);
      }
    }
  });

  it('fixed shapes, with repeated parameters and constants of the shape', () => {
    const charge = preparedQuery(
      (db, p: { id: number; amount: number }) =>
        db
          .updateTable('accounts')
          .set({ balance_main: sql`balance_main - ${p.amount}` })
          .where('id', '=', p.id)
          .where('balance_main', '>=', p.amount)
          .where('status', '=', 'Active')
          .returning('balance_main'),
      ['id', 'amount'],
    );
    for (const [id, amount] of [
      [7, 3],
      [9, 40],
    ] as const) {
      for (const db of [sqlite, postgres]) {
        const expected = db
          .updateTable('accounts')
          .set({ balance_main: sql`balance_main - ${amount}` })
          .where('id', '=', id)
          .where('balance_main', '>=', amount)
          .where('status', '=', 'Active')
          .returning('balance_main')
          .compile();
        const actual = charge(db, { id, amount });
        assert.equal(actual.sql, expected.sql);
        assert.deepEqual(actual.parameters, expected.parameters);
      }
    }
  });

  it('IN lists: what Kysely compiles for the list padded to a power of two, or as it is past 1024', () => {
    const settle = preparedList(
      (db, p: { detail: string; doneAt: number }, ids: number[]) =>
        db
          .updateTable('messages')
          .set({ state: 'sent', done_at: p.doneAt, detail: p.detail })
          .where('id', 'in', ids)
          .where('state', '=', 'submitting')
          .returning('id'),
      ['detail', 'doneAt'],
      12,
    );
    const padded = (count: number): number => (count <= 1024 ? 2 ** Math.ceil(Math.log2(count)) : count);
    // Past 1024 each length is compiled on its own: the lengths here overflow a cache of 12.
    const counts = [
      1,
      2,
      3,
      5,
      4,
      9,
      500,
      1024,
      1025,
      1,
      3,
      ...Array.from({ length: 12 }, (_, i) => 1030 + i),
      1025,
      7,
    ];
    counts.forEach((count, n) => {
      for (const db of [sqlite, postgres]) {
        const ids = Array.from({ length: count }, (_, i) => n * 10_000 + i * 3);
        const run = [...ids, ...Array.from({ length: padded(count) - count }, () => ids[count - 1] ?? 0)];
        const expected = db
          .updateTable('messages')
          .set({ state: 'sent', done_at: n, detail: `d${n}` })
          .where('id', 'in', run)
          .where('state', '=', 'submitting')
          .returning('id')
          .compile();
        const actual = settle(db, { detail: `d${n}`, doneAt: n }, ids);
        assert.equal(actual.sql, expected.sql);
        assert.deepEqual(actual.parameters, expected.parameters);
      }
    });
    assert.throws(() => settle(sqlite, { detail: 'd', doneAt: 0 }, []));
  });
});
