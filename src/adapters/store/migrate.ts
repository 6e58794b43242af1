import { setTimeout as delay } from 'node:timers/promises';
import { Migrator, sql } from 'kysely';
import type { MigrationProvider } from 'kysely';
import type { StoreConnection } from './connection.js';
import { knownMigrations, latestMigration, migrationProvider } from './migrations/index.js';

export class MigrationError extends Error {}

/**
 * Refuses a store that a newer build migrated (a migration recorded in it that this build
 * does not know): running on it could misread or damage what the newer schema keeps.
 * Nothing is written before the refusal. A store without Kysely's table yet is new.
 */
async function refuseNewerStore(handle: StoreConnection, schema: string | undefined): Promise<void> {
  const table = schema !== undefined ? sql.id(schema, 'kysely_migration') : sql.id('kysely_migration');
  let names: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(handle.db);
    names = rows.map((r) => r.name);
  } catch (error) {
    if (await hasMigrationTable(handle, schema)) throw error;
    return;
  }
  const unknown = names.filter((name) => !knownMigrations.has(name)).sort();
  if (unknown.length === 0) return;
  throw new MigrationError(
    `the store was migrated by a newer version of haberci: its migration ${unknown.join(', ')} is unknown to this version (whose last is ${latestMigration}); run that newer version, or this one on a store it made. Nothing was changed`,
  );
}

async function hasMigrationTable(handle: StoreConnection, schema: string | undefined): Promise<boolean> {
  const { rows } =
    handle.dialect === 'postgres'
      ? await sql<{
          n: number;
        }>`select count(*)::int as n from information_schema.tables where table_schema = ${schema ?? 'public'} and table_name = 'kysely_migration'`.execute(
          handle.db,
        )
      : await sql<{
          n: number;
        }>`select count(*) as n from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(
          handle.db,
        );
  return Number(rows[0]?.n ?? 0) > 0;
}

/** The schema unqualified names resolve to on PostgreSQL (the store's own). */
async function currentSchema(handle: StoreConnection): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(handle.db);
  return rows[0]?.schema ?? undefined;
}

/** PostgreSQL's "schema does not exist" (3F000): another store's schema dropped as the catalog was read. */
function catalogRace(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '3F000';
}

/** Brings the store's schema up to date; `provider` is for tests (the store's own migrations by default). */
export async function migrate(handle: StoreConnection, testProvider?: MigrationProvider): Promise<void> {
  const provider = testProvider ?? migrationProvider(handle.dialect);
  // Kysely looks for its migration tables in every schema of the database unless told
  // which one: a store in one schema would take another schema's tables for its own and
  // fail. They belong in the store's schema.
  const migrationTableSchema = handle.dialect === 'postgres' ? await currentSchema(handle) : undefined;
  if (testProvider === undefined) await refuseNewerStore(handle, migrationTableSchema);
  const migrator = new Migrator({
    db: handle.db,
    provider,
    ...(migrationTableSchema !== undefined ? { migrationTableSchema } : {}),
  });
  // One run of migrations is one transaction on both dialects. Processes starting together
  // on an empty store race to create Kysely's own migration tables first, outside it; the
  // loser's attempt fails as a whole, and another attempt finds the work done. Kysely finds
  // those tables by reading the catalog of every schema, which fails ("schema ... does not
  // exist", naming another schema) when another store's schema is dropped meanwhile (the
  // test suites, many stores in one database): an attempt again reads the catalog anew.
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    if (attempt < (catalogRace(error) ? 6 : 3)) {
      await delay(100 * attempt);
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(
      `store migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
