import pg from 'pg';
import { DEFAULT_MIGRATION_TABLE } from 'kysely';

/** Whether the schema unqualified names resolve to holds a store (its migration table); nothing is created. */
export async function postgresStoreExists(url: string, schema: string | undefined): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>(
      `select exists (select 1 from information_schema.tables where table_schema = current_schema() and table_name = $1) as found`,
      [DEFAULT_MIGRATION_TABLE],
    );
    return rows[0]?.found === true;
  } finally {
    await client.end();
  }
}
