import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { StoreLocation } from '../../src/adapters/store/index.js';

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

/**
 * Test schemas are named `haberci_test_<host>_<pid>_<born>_<random>` (`born`: seconds since
 * the epoch, base 36): the host and process that made one are in its name, so a later run
 * on this host can tell a schema left by a dead process (killed, or whose hooks failed before
 * cleanup) from one a running suite uses. A process id proves nothing across PID namespaces
 * (two runs in two containers of one host, sharing one PostgreSQL, see each other's
 * processes as gone), so a schema is swept only once it is also older than any run lasts.
 */
const schemaPrefix = 'haberci_test_';
const hostTag = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);
/** Older than any run of the suite lasts (CI stops a run at 90 minutes). */
const sweepAfterMs = 2 * 60 * 60 * 1000;

export function testSchemaName(pid: number = process.pid, bornAt: number = Date.now()): string {
  const born = Math.floor(bornAt / 1000).toString(36);
  return `${schemaPrefix}${hostTag}_${pid}_${born}_${randomBytes(4).toString('hex')}`;
}

/** The process that made a test schema of this host and when, or null for any other schema. */
export function schemaOwner(schema: string): { pid: number; bornAt: number } | null {
  const match = new RegExp(`^${schemaPrefix}${hostTag}_([0-9]+)_([0-9a-z]+)_[0-9a-f]{8}$`).exec(schema);
  if (match?.[1] === undefined || match[2] === undefined) return null;
  return { pid: Number(match[1]), bornAt: parseInt(match[2], 36) * 1000 };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops this host's test schemas whose process is gone and that are older than any run;
 * schemas of live processes, and young ones (perhaps another PID namespace's), are left alone.
 */
export async function dropLeftoverSchemas(client: pg.Client, now: number = Date.now()): Promise<string[]> {
  const { rows } = await client.query<{ nspname: string }>(
    'SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)',
    [schemaPrefix],
  );
  const dropped: string[] = [];
  for (const { nspname } of rows) {
    const owner = schemaOwner(nspname);
    if (owner === null || owner.pid === process.pid || now - owner.bornAt < sweepAfterMs || alive(owner.pid)) {
      continue;
    }
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
      dropped.push(nspname);
    } catch {
      // Another run dropped it first: either way it is gone.
    }
  }
  return dropped;
}

let leftoversSwept: Promise<unknown> | null = null;

/** Creates `schema` (a fresh test schema name by default) after this process's one sweep of dead ones. */
async function createSchema(schema: string = testSchemaName()): Promise<string> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await createSchemaWith(client, schema);
    return schema;
  } finally {
    await client.end();
  }
}

async function createSchemaWith(client: pg.Client, schema: string): Promise<void> {
  // Best effort: a sweep that fails must not fail the suite that asked for a schema.
  leftoversSwept ??= dropLeftoverSchemas(client).catch(() => []);
  await leftoversSwept;
  await client.query(`CREATE SCHEMA ${schema}`);
}

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
        const schema = await createSchema();
        schemas.push(schema);
        return { dialect: 'postgres', url: pgUrl, schema, poolSize: 4 };
      },
      cleanup: async () => {
        if (schemas.length === 0) return;
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        try {
          for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await client.end();
        }
      },
    },
  ];
}

/**
 * One describe() on one dialect. When the dialect is not configured here a single skipped
 * test stands in for the suite, so that the runner's summary counts it as skipped (node's
 * runner counts no test of a skipped describe()). The dialect's schemas are dropped after
 * the suite's own after() hooks, whether its tests passed or not.
 */
export function describeOn(dialect: TestDialect, name: string, fn: () => void): void {
  if (dialect.skipReason !== null) {
    it(name, { skip: dialect.skipReason }, () => undefined);
    return;
  }
  describe(name, () => {
    fn();
    after(() => dialect.cleanup());
  });
}

export function postgresUrl(): string {
  return pgUrl;
}

/** A PostgreSQL schema for one describe() of process suites, and the URL that puts a process in it. */
export interface SuiteSchema {
  readonly name: string;
  /** The store's URL for `--database`: `search_path` (and with `named`, `application_name`) set. */
  readonly url: string;
  /** A connection outside the processes, for the test's own statements. */
  readonly control: pg.Client;
}

/**
 * For one describe() of process tests on PostgreSQL: a schema of its own, made in before()
 * and dropped in after() (register it after the hook that stops the suite's processes, so
 * they go first). Named like every test schema, so a run that dies before after() leaves a
 * schema the next run sweeps. `named`: the URL also names the processes' connections after
 * the schema (`application_name`), so a test can end its own processes' connections and no
 * other suite's. Without HABERCI_TEST_DATABASE it does nothing (the suite skips its tests).
 */
export function schemaForSuite(options: { named?: boolean } = {}): SuiteSchema {
  const name = testSchemaName();
  let control: pg.Client | null = null;
  before(async () => {
    if (pgUrl === '') return;
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await createSchemaWith(control, name);
  });
  after(async () => {
    if (control === null) return;
    await control.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    await control.end();
  });
  return {
    name,
    url: schemaUrl(name, options),
    get control(): pg.Client {
      if (control === null) throw new Error('the schema is made in before()');
      return control;
    },
  };
}

/** HABERCI_TEST_DATABASE with `search_path` set to `schema` (and `application_name` with `named`). */
export function schemaUrl(schema: string, options: { named?: boolean } = {}): string {
  const search = `options=${encodeURIComponent(`-c search_path=${schema}`)}${options.named ? `&application_name=${schema}` : ''}`;
  return `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}${search}`;
}
