/**
 * What the accept transaction pays for the panel's derived data, in isolation: a transaction
 * like a single /sms/send's writes (a send and its one message) with, interleaved round by
 * round,
 *   - `upserts`: the sums added to `daily_counts` and `send_counts` in the transaction (as
 *     every write did before migration 0035), or `queue`: the sums appended as one row of
 *     `count_deltas` (this build);
 *   - with or without the index `messages_account_number` on messages (before 0035, with;
 *     this build, without: the number search is the deriver's `message_numbers`),
 * and the deriver's cost of the queued rows it derives (per queued row). Store: SQLite file
 * (CPU of this process, which runs SQLite) or PostgreSQL (CPU of the server's backend,
 * read from /proc: the same machine). Each round writes `perRound` transactions of one
 * account; the figure is the median round's µs a transaction.
 * Run: npm run build && node dist/bench/derived-counts.bench.js sqlite|postgres [rounds] [perRound]
 *   (postgres: HABERCI_TEST_DATABASE=postgres://...; a schema of its own, dropped after)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openConnection, storeOn } from '../src/adapters/store/open-store.js';
import { migrate } from '../src/adapters/store/migrate.js';
import type { StoreLocation } from '../src/adapters/store/store-location.js';
import type { Executor } from '../src/adapters/store/executor.js';
import { messageRow, sendRow } from '../src/adapters/store/messages/rows.js';
import { messagesInsert, sendsInsert } from '../src/adapters/store/messages/statements.js';
import { RollupDeltas } from '../src/adapters/store/messages/rollups.js';
import { AdminService, defaultKeySettings } from '../src/services/admin.js';
import { systemClock } from '../src/ports/clock.js';
import type { NewSend } from '../src/ports/messages.js';
import { must } from '../src/cli/must.js';

type Variant = 'upserts + number index (before)' | 'upserts' | 'queue + number index' | 'queue (this build)';
const withIndex = (v: Variant): boolean => v.includes('number index');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/** CPU µs of this process, or of one PostgreSQL backend (utime + stime from /proc: ticks of 10 ms, fine for a round of thousands). */
function cpuOf(pid: number | null): () => number {
  if (pid === null)
    return () => {
      const u = process.cpuUsage();
      return u.user + u.system;
    };
  return () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  };
}

async function main(): Promise<void> {
  const dialect = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
  const rounds = Number(process.argv[3] ?? 9);
  const perRound = Number(process.argv[4] ?? 2000);
  const dir = mkdtempSync(join(tmpdir(), 'haberci-derived-bench-'));
  const schema = `bench_derived_${process.pid}`;
  const url = process.env.HABERCI_TEST_DATABASE ?? '';
  let control: pg.Client | null = null;
  let location: StoreLocation;
  if (dialect === 'postgres') {
    control = new pg.Client({ connectionString: url });
    await control.connect();
    await control.query(`create schema ${schema}`);
    location = { dialect: 'postgres', url, schema, poolSize: 1 };
  } else location = { dialect: 'sqlite', file: join(dir, 'haberci.sqlite') };
  const handle = openConnection(location);
  try {
    await migrate(handle);
    const store = storeOn(handle);
    const admin = new AdminService(store, systemClock);
    const account = await must(
      admin.createAccount({
        name: 'bench',
        balanceMain: 0,
        balanceInternational: 0,
        perMinuteLimit: 0,
        otpBrand: '',
        ipAllow: [],
        globalSending: false,
      }),
    );
    const key = await must(admin.createKey(account.id, defaultKeySettings));
    const pid =
      dialect === 'postgres'
        ? Number(
            ((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0] ?? { pid: 0 }).pid,
          )
        : null;
    const cpu = cpuOf(pid);
    // Inside a transaction: this process's CPU on SQLite (it runs the statements), the wall
    // time on PostgreSQL (a round trip a statement; its backend's CPU is read per round only).
    const clock =
      pid === null
        ? () => {
            const u = process.cpuUsage();
            return u.user + u.system;
          }
        : () => performance.now() * 1000;
    let n = 0;
    // The transaction as the store's parts run it, on its executor.
    const write = (variant: Variant) =>
      store.transaction(async (bound) => {
        const db = (bound.messages as unknown as { db: Executor }).db;
        const [sendId = 0, messageId = 0] = await bound.messages.allocateIds(2);
        const at = Date.now();
        n += 1;
        const send: NewSend = {
          accountId: account.id,
          keyId: key.id,
          kind: 'sms',
          sender: 'ACME',
          text: 'bench',
          lang: 0,
          contentType: 0,
          scheduledAt: null,
          sandbox: false,
          totalNumbers: 1,
          invalidNumbers: 0,
          blockedNumbers: 0,
          smsCost: 1,
          createdAt: at,
          priority: 1,
          pendingRecipients: null,
        };
        await db.executeQuery(sendsInsert(db, [sendRow(sendId, send)]));
        const row = messageRow(
          { id: sendId, accountId: account.id, keyId: key.id, sandbox: false, createdAt: at, dueAt: at, priority: 1 },
          messageId,
          {
            recipient: `90532${String((n * 7919) % 9_000_000).padStart(7, '0')}`,
            text: null,
            smsCount: 1,
            operator: 'TURKCELL',
          },
        );
        const t0 = clock();
        await db.executeQuery(messagesInsert(db, [row]));
        const t1 = clock();
        const deltas = new RollupDeltas();
        deltas.inserted([row]);
        if (variant.startsWith('upserts')) await deltas.apply(db);
        else await deltas.queue(db);
        const t2 = clock();
        return { insert: t1 - t0, rollups: t2 - t1 };
      });
    const variants: Variant[] = [
      'upserts + number index (before)',
      'upserts',
      'queue + number index',
      'queue (this build)',
    ];
    const numberIndex = async (on: boolean): Promise<void> => {
      await (
        on
          ? sql`create index messages_account_number on messages (account_id, recipient, created_at, id)`
          : sql`drop index messages_account_number`
      ).execute(handle.db);
    };
    const samples = new Map<Variant, { round: number[]; insert: number[]; rollups: number[] }>(
      variants.map((v) => [v, { round: [], insert: [], rollups: [] }]),
    );
    const derive: number[] = [];
    // Warm-up: every statement compiled, the tables past their first pages.
    for (const v of variants) for (let i = 0; i < 300; i += 1) await write(v);
    for (let r = 0; r < rounds; r += 1) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        if (withIndex(v)) await numberIndex(true);
        const before = cpu();
        let insert = 0;
        let rollups = 0;
        for (let i = 0; i < perRound; i += 1) {
          const parts = await write(v);
          insert += parts.insert;
          rollups += parts.rollups;
        }
        const s = samples.get(v);
        s?.round.push((cpu() - before) / perRound);
        s?.insert.push(insert / perRound);
        s?.rollups.push(rollups / perRound);
        if (withIndex(v)) await numberIndex(false);
      }
      // The deriver's share: the rows queued this round, 500 a transaction.
      const queued = await store.derived.rollupsPending();
      const before = cpu();
      for (;;) if ((await store.derived.deriveRollups(500, Date.now())).derived === 0) break;
      derive.push((cpu() - before) / Math.max(1, queued));
      process.stderr.write(`[derived-counts] round ${r + 1}/${rounds}\n`);
    }
    const unit = pid === null ? 'CPU µs' : 'wall µs';
    const lines = [
      `derived-counts (${dialect}): ${rounds} rounds of ${perRound} single-send transactions per variant; medians of the rounds`,
      '',
      `| variant | message insert (${unit}) | rollup writes (${unit}) | whole transaction (${pid === null ? 'CPU of this process' : 'CPU of the backend'}, µs) |`,
      '|---|---:|---:|---:|',
      ...variants.map((v) => {
        const x = samples.get(v) ?? { round: [], insert: [], rollups: [] };
        return `| ${v} | ${median(x.insert).toFixed(1)} | ${median(x.rollups).toFixed(1)} | ${median(x.round).toFixed(1)} |`;
      }),
      `| deriver, per queued row (500 a transaction) | | ${median(derive).toFixed(1)} (CPU) | |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await handle.close();
    if (control) {
      await control.query(`drop schema if exists ${schema} cascade`);
      await control.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
