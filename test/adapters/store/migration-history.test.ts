/**
 * A recorded migration never changes (migrations/index.ts): its name stands in every store it
 * ran on, and a store migrated by it is never migrated by it again. This test holds the rule
 * as a check: the SQL each migration runs, compiled for each dialect without a database, is
 * compared with the fingerprint recorded in `migration-history.json` when it was added. A
 * shared helper the migrations use may be reworked only as long as every fingerprint stays.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Dialect as KyselyDialect } from 'kysely';
import { knownMigrations, migrationProvider } from '../../../src/adapters/store/migrations/index.js';
import type { Dialect } from '../../../src/adapters/store/store-location.js';

const dialects: readonly Dialect[] = ['sqlite', 'postgres'];

/** Kysely's own pieces for a dialect, over a driver that runs nothing and answers no rows. */
function offline(dialect: Dialect): KyselyDialect {
  return dialect === 'postgres'
    ? {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      }
    : {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      };
}

/**
 * Every statement a migration runs on a dialect, in order, with the types of its parameters
 * (not their values: 0026 draws the OTP secret at random).
 */
async function statementsOf(name: string, dialect: Dialect): Promise<string[]> {
  const statements: string[] = [];
  const db = new Kysely<unknown>({
    dialect: offline(dialect),
    log: (event) => {
      statements.push(`${event.query.sql} -- ${event.query.parameters.map((p) => typeof p).join(', ')}`);
    },
  });
  const migrations = await migrationProvider(dialect).getMigrations();
  const migration = migrations[name];
  assert.ok(migration, `no migration ${name}`);
  await migration.up(db);
  await db.destroy();
  return statements;
}

function fingerprint(statements: readonly string[]): string {
  return createHash('sha256').update(statements.join('\n;\n')).digest('hex');
}

type History = Record<string, Record<Dialect, string>>;
/** Read from the checkout (the tests run from its root), beside this file's source. */
const historyFile = 'test/adapters/store/migration-history.json';
const history = JSON.parse(readFileSync(historyFile, 'utf8')) as History;

describe('migration history', () => {
  it('every migration runs the statements recorded when it was added, on both dialects', async () => {
    const changed: string[] = [];
    const unrecorded: Record<string, Record<Dialect, string>> = {};
    for (const name of knownMigrations) {
      const recorded = history[name];
      const now = { sqlite: '', postgres: '' } satisfies Record<Dialect, string>;
      for (const dialect of dialects) {
        const statements = await statementsOf(name, dialect);
        now[dialect] = fingerprint(statements);
        if (recorded !== undefined && recorded[dialect] !== now[dialect]) {
          changed.push(`${name} (${dialect}):\n  ${statements.join('\n  ')}`);
        }
      }
      if (recorded === undefined) unrecorded[name] = now;
    }
    assert.deepEqual(changed, [], 'a recorded migration changed; undo the change (or the helper change) that moved it');
    assert.deepEqual(unrecorded, {}, `a new migration: add its fingerprints to ${historyFile}`);
  });

  it('records only migrations this build knows', () => {
    assert.deepEqual(
      Object.keys(history).filter((name) => !knownMigrations.has(name)),
      [],
    );
  });
});
