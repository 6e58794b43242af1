/**
 * Retention (`serve --retention-days N`, issue 24) seen from outside: a real `serve` on each
 * dialect, messages sent over HTTP, some of them then made older than the period in the store
 * itself (as time would), and a restart with retention on. What went answers exactly as an
 * id that never existed (/sms/status TS-1020, the reports TS-1029); a send with a message
 * still unfinished stays whole, however old; recent data stays; the panel's daily counts
 * keep the removed messages.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { admin, postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { postgresUrl, testSchemaName } from '../helpers/dialects.js';
import { pause, waitFor } from '../helpers/wait-for.js';

const dayMs = 86_400_000;

/** Plain SQL against the store, outside the service: the test's clock hands. */
interface Raw {
  run(statement: string): Promise<void>;
  number(query: string): Promise<number>;
  close(): Promise<void>;
}

async function stopServer(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.output());
}

/** The webhook events of a key, as the provider lists them. */
async function eventsOf(
  storeArgs: string[],
  keyId: string,
): Promise<{ sms_id: number | null; state: string; attempts: unknown[] }[]> {
  const listed = await admin(['webhook', 'deliveries', '--key', keyId, '--limit', '1000', ...storeArgs]);
  return listed.deliveries as { sms_id: number | null; state: string; attempts: unknown[] }[];
}

async function scenario(storeArgs: string[], raw: () => Promise<Raw>): Promise<void> {
  // A webhook receiver that takes everything: each message's events are delivered.
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const base = [
    '--demo',
    'false',
    '--sim-delay-ms',
    '20',
    '--requests-per-second',
    '0',
    '--webhook-allow-private',
    'true',
    ...storeArgs,
  ];
  let server = await startServer(base);
  try {
    const sender = await provisionSender(storeArgs, 'Retain', 1000, [
      '--webhook-url',
      hook,
      '--webhook-secret',
      'retention-secret',
    ]);
    const key = sender.apiKey;
    const status = (id: number): Promise<{ status: number; body: Record<string, unknown> }> =>
      postJson(`${server.url}/sms/status`, { api_key: key, sms_id: id });
    const basic = (id: number): Promise<{ status: number; body: Record<string, unknown> }> =>
      postJson(`${server.url}/reports/basic`, { api_key: key, raporid: id });
    const detailed = (id: number): Promise<{ status: number; body: Record<string, unknown> }> =>
      postJson(`${server.url}/reports/detailed`, { api_key: key, raporid: id });
    const group = async (numbers: string[]): Promise<number> => {
      const answer = await postJson(`${server.url}/group/send`, {
        api_key: key,
        title: 'ACME',
        sentto: numbers,
        text: 'retention',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
      return Number((answer.body.data as Record<string, unknown> | undefined)?.rapor_id ?? answer.body.rapor_id);
    };
    const single = async (to: string): Promise<number> => {
      const answer = await postJson(`${server.url}/sms/send`, {
        api_key: key,
        title: 'ACME',
        sentto: to,
        text: 'retention',
        sms_lang: 0,
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
      return Number(answer.body.sms_id);
    };
    const rows = async (report: number): Promise<Record<string, unknown>[]> => {
      const answer = await detailed(report);
      return Array.isArray(answer.body.data) ? (answer.body.data as Record<string, unknown>[]) : [];
    };
    const settled = async (report: number, n: number): Promise<boolean> =>
      (await rows(report)).filter((r) => Number(r.status_code) !== 0 || String(r.details ?? '').length > 0).length >= n;

    // Old (to be aged): a group all finished (one delivered, one failed), a group with a
    // message that never gets a report (…0002: stays sent), a single delivered message.
    const finishedGroup = await group(['905321110001', '905321110000']);
    const unfinishedGroup = await group(['905321110011', '905321110002']);
    const oldSingle = await single('905321110021');
    await waitFor(
      'the old messages to settle',
      async () =>
        (await status(oldSingle)).body.result_code === 'TS-1064' &&
        (await rows(finishedGroup)).length === 2 &&
        (await rows(unfinishedGroup)).length === 2,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    await waitFor('the finished group to finish', () => settled(finishedGroup, 2), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    // Recent: a delivered message, younger than the period.
    const recent = await single('905321110031');
    await waitFor(
      'the recent message to be delivered',
      async () => (await status(recent)).body.result_code === 'TS-1064',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const unknownStatus = await status(oldSingle + 1_000_000);
    const unknownReport = await basic(finishedGroup + 1_000_000);
    assert.equal(unknownStatus.body.result_code, 'TS-1020');
    assert.equal(unknownReport.body.result_code, 'TS-1029');
    assert.equal((await basic(finishedGroup)).body.result_code, 'TS-1064');
    await waitFor(
      'the webhook events to be delivered',
      async () => {
        const events = await eventsOf(storeArgs, sender.keyId);
        return (
          events.length > 0 &&
          events.some((e) => e.sms_id === recent && e.state === 'delivered') &&
          events.every((e) => e.state === 'delivered')
        );
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    await stopServer(server);

    // Forty days pass for the old sends (their messages, webhook events none here).
    const db = await raw();
    let countsBefore: number;
    try {
      const old = [finishedGroup, unfinishedGroup].join(', ');
      const oldSends = `(${old}, (select send_id from messages where id = ${oldSingle}))`;
      await db.run(`update messages set created_at = created_at - ${40 * dayMs} where send_id in ${oldSends}`);
      await db.run(`update sends set created_at = created_at - ${40 * dayMs} where id in ${oldSends}`);
      await db.run(
        `update webhook_events set created_at = created_at - ${40 * dayMs} where sms_id in (select id from messages where send_id in ${oldSends})`,
      );
      countsBefore = await db.number('select sum(messages) from daily_counts');
      assert.equal(countsBefore, 6);
    } finally {
      await db.close();
    }

    // Retention on, one row a batch: it walks past the unfinished message and stops at the recent one.
    server = await startServer([
      ...base,
      '--retention-days',
      '30',
      '--retention-every-ms',
      '1000',
      '--retention-batch',
      '1',
      '--retention-pause-ms',
      '0',
    ]);
    await waitFor(
      'the old single message to be removed',
      async () => (await status(oldSingle)).body.result_code === 'TS-1020',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    await waitFor(
      'the finished old group to be removed',
      async () => (await basic(finishedGroup)).body.result_code === 'TS-1029',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    // Gone reads as never there: the same status, the same body.
    assert.deepEqual(await status(oldSingle), unknownStatus);
    assert.deepEqual(await basic(finishedGroup), unknownReport);
    assert.deepEqual(await detailed(finishedGroup), await detailed(finishedGroup + 1_000_000));
    // A send with an unfinished message stays whole, however old; recent data stays.
    assert.equal((await basic(unfinishedGroup)).body.result_code, 'TS-1064');
    assert.equal((await rows(unfinishedGroup)).length, 2);
    assert.equal((await status(recent)).body.result_code, 'TS-1064');
    // Webhook events go by their own age, with their attempts: only the recent message's are left.
    await waitFor(
      'the old webhook events to be removed',
      async () => (await eventsOf(storeArgs, sender.keyId)).every((e) => e.sms_id === recent),
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const kept = await eventsOf(storeArgs, sender.keyId);
    assert.ok(kept.length > 0 && kept.every((e) => e.attempts.length > 0), JSON.stringify(kept));
    await stopServer(server);

    const after = await raw();
    try {
      assert.equal(
        await after.number('select count(*) from messages'),
        3,
        'the unfinished group and the recent message are left',
      );
      assert.equal(await after.number('select count(*) from sends'), 2);
      // The overview's history keeps the removed messages (docs/decisions.md, Retention).
      assert.equal(await after.number('select sum(messages) from daily_counts'), countsBefore);
      assert.equal(
        await after.number('select count(*) from send_counts'),
        2,
        'the removed sends\u2019 own rollup rows go with them',
      );
      assert.equal(
        await after.number(
          'select count(*) from webhook_attempts a left join webhook_events e on e.id = a.event_ref where e.id is null',
        ),
        0,
        'no attempt outlives its event',
      );
    } finally {
      await after.close();
    }
  } finally {
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

// The timeout only bounds a hung run (the runner's per-file limit too): alone it takes about
// 80 s; three files at a time on two cores, up to 135 s was seen.

/**
 * Drops a suite's schema after its server was killed, whose backend may hold its locks a
 * moment longer (40P01: tried again), and ends the control connection whatever happens, or it
 * would keep the file alive.
 */
async function dropSchemaAndEnd(control: pg.Client, schema: string): Promise<void> {
  try {
    for (let attempt = 1; ; attempt++) {
      const failed = await control.query(`drop schema if exists ${schema} cascade`).then(
        () => null,
        (error: unknown) => error,
      );
      if (failed === null) return;
      if ((failed as { code?: string }).code !== '40P01' || attempt === 5) throw failed;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  } finally {
    await control.end();
  }
}

describe('retention through a real serve', { timeout: 240_000 }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('SQLite: removed data answers as unknown; unfinished sends and recent data stay; daily counts kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-retain-'));
    dirs.push(dir);
    await scenario(['--data', dir], async () => {
      const db = new BetterSqlite3(join(dir, 'haberci.sqlite'));
      return {
        run: async (statement) => void db.prepare(statement).run(),
        number: async (query) => Number(Object.values(db.prepare(query).get() as Record<string, unknown>)[0]),
        close: async () => void db.close(),
      };
    });
  });

  const url = postgresUrl();
  it(
    'PostgreSQL: the same',
    { skip: url === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false },
    async () => {
      const schema = testSchemaName();
      const control = new pg.Client({ connectionString: url });
      await control.connect();
      try {
        await control.query(`create schema ${schema}`);
        const target = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        await scenario(['--database', target], async () => {
          const client = new pg.Client({ connectionString: target });
          await client.connect();
          return {
            run: async (statement) => void (await client.query(statement)),
            number: async (query) =>
              Number(Object.values((await client.query(query)).rows[0] as Record<string, unknown>)[0]),
            close: () => client.end(),
          };
        });
      } finally {
        await dropSchemaAndEnd(control, schema);
      }
    },
  );
  it(
    'PostgreSQL: old messages go a partition at a time; new ones go on into partitions made ahead',
    { skip: url === '' ? 'PostgreSQL suite skipped: set HABERCI_TEST_DATABASE=postgres://... to run it' : false },
    async () => {
      const schema = testSchemaName();
      const control = new pg.Client({ connectionString: url });
      await control.connect();
      let server: ServerProcess | null = null;
      try {
        await control.query(`create schema ${schema}`);
        const target = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        // Partitions of four ids (a /sms/send takes two: its send and its message), made a sweep a second.
        const args = [
          '--database',
          target,
          '--demo',
          'false',
          '--sim-delay-ms',
          '20',
          '--requests-per-second',
          '0',
          '--retention-days',
          '30',
          '--retention-every-ms',
          '1000',
          '--retention-partition-ids',
          '4',
        ];
        server = await startServer(args);
        const sender = await provisionSender(['--database', target], 'Partitions', 1000);
        const live = (): ServerProcess => server ?? assert.fail('no server');
        const status = async (id: number): Promise<string> =>
          String((await postJson(`${live().url}/sms/status`, { api_key: sender.apiKey, sms_id: id })).body.result_code);
        const send = async (to: string): Promise<number> => {
          const answer = await postJson(`${live().url}/sms/send`, {
            api_key: sender.apiKey,
            title: 'ACME',
            sentto: to,
            text: 'partitions',
            sms_lang: 0,
          });
          assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
          return Number(answer.body.sms_id);
        };
        const ids: number[] = [];
        for (let i = 0; i < 6; i++) {
          ids.push(await send(`9053212010${i}5`));
          // On purpose: a sweep (every second) makes the next partition between two sends.
          await pause(1200);
        }
        for (const id of ids)
          await waitFor(`message ${id} delivered`, async () => (await status(id)) === 'TS-1064', {
            timeoutMs: 20_000,
            intervalMs: 100,
          });
        await stopServer(live());
        server = null;
        const holders = await control.query<{ holder: string }>(
          `select distinct tableoid::regclass::text as holder from ${schema}.messages`,
        );
        const ranged = holders.rows
          .map((r) => r.holder.replace(/^.*\./, ''))
          .filter((name) => name !== 'messages_pdefault');
        assert.ok(ranged.length >= 2, `the messages went into partitions made ahead: ${JSON.stringify(holders.rows)}`);
        await control.query(`update ${schema}.messages set created_at = created_at - ${40 * dayMs}`);
        await control.query(`update ${schema}.sends set created_at = created_at - ${40 * dayMs}`);

        server = await startServer(args);
        for (const id of ids)
          await waitFor(`message ${id} removed`, async () => (await status(id)) === 'TS-1020', {
            timeoutMs: 20_000,
            intervalMs: 100,
          });
        const left = await control.query<{ name: string }>(
          `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = '${schema}.messages'::regclass`,
        );
        const names = left.rows.map((r) => r.name);
        // Every partition below the id sequence was dropped whole; the one new ids may still
        // go to is never dropped, and the batches emptied it instead (the ids above answer TS-1020).
        const dropped = ranged.filter((name) => !names.includes(name));
        assert.ok(
          dropped.length >= 1 && dropped.length >= ranged.length - 1,
          `partitions dropped whole: ${dropped.join(', ')} of ${ranged.join(', ')} (left: ${names.join(', ')})`,
        );
        assert.equal(Number((await control.query(`select count(*) as n from ${schema}.messages`)).rows[0]?.n), 0);
        assert.ok(names.includes('messages_pdefault'));
        // Sending goes on, into the partitions made ahead.
        const after = await send('905321201095');
        await waitFor('a new message delivered', async () => (await status(after)) === 'TS-1064', {
          timeoutMs: 20_000,
          intervalMs: 100,
        });
      } finally {
        if (server !== null) {
          server.child.kill('SIGKILL');
          await server.exited;
        }
        await dropSchemaAndEnd(control, schema);
      }
    },
  );
});
