/**
 * The dialect loop's bookkeeping, seen from a child test runner on a fixture suite: a
 * suite on an unconfigured dialect counts as skipped in the summary, and a PostgreSQL
 * suite leaves no schema behind, whether its tests fail or its process died earlier.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';

const testSources = fileURLToPath(new URL('../../../test', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/dialect-suite.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'haberci-dialects-'));
const schemaFile = join(dir, 'schemas.txt');

interface Run {
  status: number | null;
  counts: Record<string, number>;
  output: string;
}

function runFixture(env: Record<string, string>): Run {
  // Without the runner's NODE_TEST_CONTEXT the child reports to its own stdout, not to ours.
  const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  const child = spawnSync(process.execPath, ['--test', '--test-reporter=tap', fixture], {
    encoding: 'utf8',
    env: { ...inherited, FIXTURE_SCHEMA_FILE: schemaFile, ...env },
  });
  const counts: Record<string, number> = {};
  for (const [, name = '', value = ''] of child.stdout.matchAll(/^# (tests|pass|fail|skipped) (\d+)$/gm))
    counts[name] = Number(value);
  return { status: child.status, counts, output: child.stdout + child.stderr };
}

async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function existingSchemas(names: readonly string[]): Promise<string[]> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ nspname: string }>(
      'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)',
      [names],
    );
    return rows.map((r) => r.nspname);
  });
}

after(() => rmSync(dir, { recursive: true, force: true }));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('suites on dialects', () => {
  it('count a suite on an unconfigured dialect as a skipped test in the summary', () => {
    const run = runFixture({ HABERCI_TEST_DATABASE: '' });
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(run.counts, { tests: 2, pass: 1, fail: 0, skipped: 1 }, run.output);
    assert.match(run.output, /# SKIP PostgreSQL suite skipped/);
  });

  it('are all made with describeOn, the one place that reads skipReason', () => {
    const property = ['.skip', 'Reason'].join(''); // not written out, or this file would read it
    const readers = sourceFiles(testSources)
      .filter((file) => readFileSync(file, 'utf8').includes(property))
      .map((file) => relative(testSources, file));
    assert.deepEqual(readers, [join('helpers', 'dialects.ts')]);
  });

  const skip = postgresUrl() === '' ? 'set HABERCI_TEST_DATABASE to run the PostgreSQL cases' : false;

  it("drop a PostgreSQL suite's schema when its test fails", { skip }, async () => {
    rmSync(schemaFile, { force: true });
    const run = runFixture({ FIXTURE_FAIL: '1' });
    assert.notEqual(run.status, 0, run.output);
    assert.equal(run.counts.fail, 2, 'both dialects fail on purpose');
    const made = readFileSync(schemaFile, 'utf8')
      .split('\n')
      .filter((s) => s !== '');
    assert.equal(made.length, 1, 'the PostgreSQL test took a schema');
    assert.deepEqual(await existingSchemas(made), []);
  });

  it(
    'drop the schemas of test processes that are gone and older than a run, and only theirs, before taking a new one',
    { skip },
    async () => {
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const hoursAgo = Date.now() - 3 * 60 * 60 * 1000;
      const leftover = testSchemaName(gone, hoursAgo);
      // A young schema of a process this run cannot see: another PID namespace's run, perhaps.
      const young = testSchemaName(gone);
      const inUse = testSchemaName(process.pid, hoursAgo);
      const names = [leftover, young, inUse];
      await withClient(async (client) => {
        for (const name of names) await client.query(`CREATE SCHEMA ${name}`);
      });
      try {
        const run = runFixture({});
        assert.equal(run.status, 0, run.output);
        assert.deepEqual((await existingSchemas(names)).sort(), [young, inUse].sort());
      } finally {
        await withClient(async (client) => {
          for (const name of names) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
        });
      }
    },
  );
});
