import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { StoreLocation } from '../../src/adapters/store/database.js';

/**
 * The store dialects every store-touching suite runs on: SQLite in memory always, and
 * PostgreSQL when HABERCI_TEST_DATABASE names a database (CI sets it). Each PostgreSQL
 * suite gets a schema of its own, dropped afterwards.
 */
export interface TestDialect {
  name: 'sqlite' | 'postgres';
  /** null when the dialect is not configured here: the suite reports itself skipped. */
  skipReason: string | null;
  location(): Promise<StoreLocation>;
  cleanup(): Promise<void>;
}

const pgUrl = process.env.HABERCI_TEST_DATABASE ?? '';

export function testDialects(): TestDialect[] {
  const schemas: string[] = [];
  return [
    {
      name: 'sqlite',
      skipReason: null,
      location: async () => ({ dialect: 'sqlite', file: ':memory:' }),
      cleanup: async () => undefined,
    },
    {
      name: 'postgres',
      skipReason: pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : null,
      location: async () => {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`CREATE SCHEMA ${schema}`);
        await client.end();
        schemas.push(schema);
        return { dialect: 'postgres', url: pgUrl, schema, poolSize: 4 };
      },
      cleanup: async () => {
        if (schemas.length === 0) return;
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      },
    },
  ];
}

export function postgresUrl(): string {
  return pgUrl;
}
