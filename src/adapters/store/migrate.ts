import { setTimeout as delay } from 'node:timers/promises';
import { Migrator, sql } from 'kysely';
import type { MigrationProvider } from 'kysely';
import type { StoreConnection } from './connection.js';
import { migrationProvider } from './migrations/index.js';

export class MigrationError extends Error {}

/** The schema unqualified names resolve to on PostgreSQL (the store's own). */
async function currentSchema(handle: StoreConnection): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(handle.db);
  return rows[0]?.schema ?? undefined;
}

/** Brings the store's schema up to date; `provider` is for tests (the store's own migrations by default). */
export async function migrate(handle: StoreConnection, provider: MigrationProvider = migrationProvider(handle.dialect)): Promise<void> {
  // Kysely looks for its migration tables in every schema of the database unless told
  // which one: a store in one schema would take another schema's tables for its own and
  // fail. They belong in the store's schema.
  const migrationTableSchema = handle.dialect === 'postgres' ? await currentSchema(handle) : undefined;
  const migrator = new Migrator({
    db: handle.db,
    provider,
    ...(migrationTableSchema !== undefined ? { migrationTableSchema } : {}),
  });
  // One run of migrations is one transaction on both dialects. Processes starting together
  // on an empty store race to create Kysely's own migration tables first, outside it; the
  // loser's attempt fails as a whole, and another attempt finds the work done.
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    if (attempt < 3) {
      await delay(100 * attempt);
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`store migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
