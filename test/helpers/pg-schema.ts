/**
 * For one describe() of process tests on PostgreSQL: a schema of its own, made before its
 * tests and dropped after them, with the URL that puts a process in it. `named`: the URL also
 * names the processes' connections after the schema (`application_name`), so a test can end
 * its own processes' connections and no other suite's.
 */
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface SuiteSchema {
  readonly name: string;
  /** The store's URL for `--database`. */
  readonly url: string;
  /** A connection outside the processes, for the test's own statements. */
  readonly control: pg.Client;
}

export function schemaForSuite(pgUrl: string, prefix: string, options: { named?: boolean } = {}): SuiteSchema {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  let control: pg.Client | null = null;
  before(async () => {
    if (pgUrl === '') return;
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await control.query(`create schema ${name}`);
  });
  after(async () => {
    if (control === null) return;
    await control.query(`drop schema if exists ${name} cascade`);
    await control.end();
  });
  const search = `options=${encodeURIComponent(`-c search_path=${name}`)}${options.named ? `&application_name=${name}` : ''}`;
  return {
    name,
    url: `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}${search}`,
    get control(): pg.Client {
      if (control === null) throw new Error('the schema is made in before()');
      return control;
    },
  };
}
