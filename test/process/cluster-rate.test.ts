/**
 * The general per-key request rate holds for a cluster (issue 24): two `serve` processes on
 * one PostgreSQL store refuse a key at its rate, not at twice it, whether they count in
 * Redis (`--redis`) or in the store; and a Redis that is away lets requests through
 * (fail-open) without making them wait; and the hourly limit, taken in leases, admits its
 * count across processes, never more. Real processes, real HTTP.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, schemaForSuite } from '../helpers/dialects.js';
import { redisSkipReason, testRedisUrl } from '../helpers/redis.js';
import { pause } from '../helpers/wait-for.js';

const pgUrl = postgresUrl();
const pgSkip = pgUrl === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false;
// Asked once, before the tests are declared, so the Redis test carries its skip (with the reason).
const redisSkip = await redisSkipReason();
const rate = 20;

/**
 * Sends `perServer` /balance/ requests to each server at once and counts the answers: 200
 * (TS-1040) and 429 (TS-1060). A key's window opens at its first counted request and lasts a
 * second, so a burst that lasted `ms` was counted in at most `floor(ms / 1000) + 1` windows
 * (`windows`): the cluster may admit at most `rate` in each. A burst that may have spanned
 * two windows is sent again (up to four times) after its window ends, so that the usual
 * outcome is one window, where exactly `rate` are admitted.
 */
async function burst(
  servers: readonly ServerProcess[],
  apiKey: string,
  perServer: number,
): Promise<{ accepted: number; refused: number; byServer: number[]; windows: number }> {
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    const answers = await Promise.all(
      servers.map((s) =>
        Promise.all(Array.from({ length: perServer }, () => postJson(`${s.url}/balance/`, { api_key: apiKey }))),
      ),
    );
    const ms = Date.now() - started;
    if (ms >= 900 && attempt < 3) {
      // On purpose: the burst may have straddled a window; the next starts in a fresh one.
      await pause(1100);
      continue;
    }
    const windows = ms < 900 ? 1 : Math.floor(ms / 1000) + 1;
    // A burst slow enough to span as many windows as it has requests per rate could have every
    // request admitted without the cluster sharing its count: it proves nothing, so it fails.
    assert.ok(
      rate * windows < servers.length * perServer,
      `the burst took ${ms} ms (${windows} windows) on the last of ${attempt + 1} attempts: too slow to show the rate`,
    );
    const byServer = answers.map((list) => list.filter((a) => a.status === 200).length);
    for (const a of answers.flat()) {
      if (a.status === 200) assert.equal(a.body.result_code, 'TS-1040');
      else assert.deepEqual([a.status, a.body.result_code], [429, 'TS-1060'], JSON.stringify(a.body));
    }
    const accepted = byServer.reduce((a, b) => a + b, 0);
    return { accepted, refused: servers.length * perServer - accepted, byServer, windows };
  }
}

/**
 * What the cluster must have admitted of a burst of `sent`: exactly the key's rate when the
 * burst was counted in one window (the usual case), and never more than the rate in each
 * window it may have spanned (a loaded machine's slow burst). Counts, not milliseconds.
 */
function assertAdmittedOnce(
  b: { accepted: number; refused: number; byServer: number[]; windows: number },
  sent: number,
): void {
  const detail = `accepted ${b.accepted} of ${sent} in ${b.windows} window(s) (by process: ${b.byServer.join(', ')})`;
  if (b.windows === 1) {
    assert.equal(b.accepted, rate, detail);
    assert.equal(b.refused, sent - rate, detail);
  } else {
    assert.ok(b.accepted >= 1 && b.accepted <= rate * b.windows, detail);
    assert.ok(b.refused >= sent - rate * b.windows, detail);
  }
}

describe('the per-key rate of a cluster on PostgreSQL', () => {
  const servers: ServerProcess[] = [];

  // Before the schema's own after(): the processes go first, then their schema.
  after(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
  });
  const { url } = schemaForSuite();

  // Without job threads: nothing is delivered here (only /balance/ is asked), and two threads
  // cost each start about two seconds of CPU.
  async function cluster(extra: readonly string[]): Promise<ServerProcess[]> {
    const args = ['--database', url, '--demo', 'false', '--worker', 'false', '--requests-per-second', String(rate)];
    const two = [await startServer([...args, ...extra]), await startServer([...args, ...extra])];
    servers.push(...two);
    return two;
  }

  async function stop(two: readonly ServerProcess[]): Promise<void> {
    for (const s of two) s.child.kill('SIGTERM');
    await Promise.all(two.map((s) => s.exited));
  }

  it(
    'counted in the store (no --redis): two processes refuse at the key\u2019s rate, not twice it',
    { skip: pgSkip },
    async () => {
      const two = await cluster([]);
      const sender = await provisionSender(['--database', url], 'Store rate', 10);
      assertAdmittedOnce(await burst(two, sender.apiKey, 2 * rate), 4 * rate);
      assert.match(two[0]?.output() ?? '', /per-key request rate counted in the PostgreSQL store/);
      await stop(two);
    },
  );

  it(
    'counted in Redis (--redis): two processes refuse at the key\u2019s rate, not twice it',
    { skip: pgSkip || redisSkip },
    async () => {
      const two = await cluster(['--redis', testRedisUrl]);
      const sender = await provisionSender(['--database', url], 'Redis rate', 10);
      assertAdmittedOnce(await burst(two, sender.apiKey, 2 * rate), 4 * rate);
      assert.match(two[1]?.output() ?? '', /per-key request rate counted in Redis/);
      await stop(two);
    },
  );
});

describe('the hourly limit of a cluster on PostgreSQL, counted in leases', () => {
  const servers: ServerProcess[] = [];
  // Before the schema's own after(): the processes go first, then their schema.
  after(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
  });
  const schema = schemaForSuite();

  it(
    'admits the limit across two processes, never more, and a place leased and not used is given back',
    { skip: pgSkip },
    async () => {
      const limit = 40; // a lease of 2 (1/20)
      const [one, two] = [
        await startServer([
          '--database',
          schema.url,
          '--demo',
          'false',
          '--worker',
          'false',
          '--requests-per-second',
          '0',
        ]),
        await startServer([
          '--database',
          schema.url,
          '--demo',
          'false',
          '--worker',
          'false',
          '--requests-per-second',
          '0',
        ]),
      ];
      servers.push(one as ServerProcess, two as ServerProcess);
      const sender = await provisionSender(['--database', schema.url], 'Leases', 10, ['--hourly-limit', String(limit)]);
      const codes = async (server: ServerProcess | undefined, n: number): Promise<string[]> =>
        (
          await Promise.all(
            Array.from({ length: n }, () => postJson(`${server?.url}/balance/`, { api_key: sender.apiKey })),
          )
        ).map((a) => String(a.body.result_code));
      const count = (list: readonly string[], code: string): number => list.filter((c) => c === code).length;
      // The first process takes a lease of 2 and uses 1.
      assert.deepEqual(await codes(one, 1), ['TS-1040']);
      // The second gets the rest of the hour, less the place the first holds.
      const burst = await codes(two, limit + 5);
      assert.equal(count(burst, 'TS-1040'), limit - 2, JSON.stringify(burst));
      assert.equal(count(burst, 'TS-1068'), 7);
      // Idle for a second, the first gives its unused place back: the second gets it, and no more.
      // On purpose: the idle time after which a lease is given back must pass.
      await pause(2300);
      assert.deepEqual((await codes(two, 2)).sort(), ['TS-1040', 'TS-1068']);
      assert.deepEqual(await codes(one, 1), ['TS-1068'], 'the cluster admitted the limit, 40, and no more');
    },
  );
});

describe('a Redis that is away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-redis-away-'));
  let server: ServerProcess | null = null;
  after(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets requests through at once (fail-open), says so in the log once, and starts anyway', async () => {
    // Port 1 on loopback: nothing listens, so every connection is refused.
    server = await startServer([
      '--data',
      dir,
      '--demo',
      'false',
      '--requests-per-second',
      '2',
      '--redis',
      'redis://127.0.0.1:1',
    ]);
    const sender = await provisionSender(['--data', dir], 'Away', 10);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      const answer = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
      times.push(Date.now() - started);
      assert.deepEqual([answer.status, answer.body.result_code], [200, 'TS-1040']);
    }
    assert.ok(Math.max(...times) < 1000, `every answer within a second: ${times.join(', ')} ms`);
    const warnings = server
      .output()
      .split('\n')
      .filter((l) => l.includes('redis: unreachable'));
    assert.equal(warnings.length, 1, server.output());
  });
});
