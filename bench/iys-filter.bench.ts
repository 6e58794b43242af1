/**
 * Issue 34: a commercial /group/send (iys=1) of 50,000 numbers against an account holding
 * 1,000,000 consents, beside the same send without iys, interleaved (ON OFF OFF ON ...), in
 * one process on a SQLite file store, answers timed from request to response (app.inject:
 * the HTTP stack without the socket). The target: the commercial send answers in at most
 * 1.5 times the time of the plain one. Bounded: `rounds` sends of each kind.
 * Run: npm run build && node dist/bench/iys-filter.bench.js [rounds] [consents] [index|probe]
 * (`probe`: without the consent index in memory, every number probed in the table as before it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { openAppContainer } from '../src/main.js';
import { buildApp } from '../src/http/app.js';
import { defaultConnectionLimits } from '../src/config.js';
import { defaultKeySettings } from '../src/services/admin.js';
import type { SqlStore } from '../src/adapters/store/sql-store.js';
import { must } from '../src/cli/must.js';

const numberOf = (i: number): string => `9053${String(i).padStart(8, '0')}`;

function fillConsents(file: string, accountId: number, count: number): void {
  const db = new BetterSqlite3(file);
  try {
    const insert = db.prepare(
      `INSERT INTO iys_consents (account_id, recipient_type, recipient, status, source, consent_date, recorded_at, sync_state)
       VALUES (?, 'BIREYSEL', ?, ?, 'HS_WEB', ?, ?, 'synced')`,
    );
    const now = Date.now();
    const fill = db.transaction((from: number, to: number) => {
      // Every tenth recipient has said RET; the others consented.
      for (let i = from; i < to; i++) insert.run(accountId, numberOf(i), i % 10 === 0 ? 'RET' : 'ONAY', now, now);
    });
    for (let from = 0; from < count; from += 100_000) fill(from, Math.min(count, from + 100_000));
  } finally {
    db.close();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const consents = Number(process.argv[3] ?? 1_000_000);
  const lookup = process.argv[4] === 'probe' ? 'probe' : 'index';
  const dir = mkdtempSync(join(tmpdir(), 'haberci-iys-bench-'));
  const file = join(dir, 'haberci.sqlite');
  const runtime = await openAppContainer({ dialect: 'sqlite', file });
  try {
    const account = await must(
      runtime.admin.createAccount({
        name: 'Bench',
        balanceMain: 100_000_000,
        balanceInternational: 0,
        perMinuteLimit: 0,
        otpBrand: 'Bench',
        ipAllow: [],
        globalSending: false,
      }),
    );
    await runtime.store.senderIds.addSenderId(account.id, 'ACME', 'approved', Date.now());
    const key = await must(runtime.admin.createKey(account.id, { ...defaultKeySettings }));
    const started = performance.now();
    fillConsents(file, account.id, consents);
    process.stderr.write(`${consents} consents written in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    if (lookup === 'probe')
      (runtime.store as unknown as SqlStore).consents.indexWith({ minRecipients: Number.POSITIVE_INFINITY });
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: runtime.services,
      requestsPerSecond: 0,
    });
    const times: Record<'plain' | 'commercial', number[]> = { plain: [], commercial: [] };
    let skipped = -1;
    for (let round = 0; round < rounds + 1; round++) {
      const order = round % 2 === 0 ? (['commercial', 'plain'] as const) : (['plain', 'commercial'] as const);
      for (const kind of order) {
        // 50,000 numbers spread over the consent range (and 5% outside it: no consent).
        const offset = (round * 7919) % 1000;
        const sentto = Array.from({ length: 50_000 }, (_, i) =>
          i % 20 === 0 ? numberOf(consents + round * 50_000 + i) : numberOf((i * 19 + offset) % consents),
        );
        const payload = JSON.stringify({
          api_key: key.api_key,
          title: 'ACME',
          sentto,
          text: 'Kampanya',
          ...(kind === 'commercial' ? { iys: 1 } : {}),
        });
        const t0 = performance.now();
        const answer = await app.inject({
          method: 'POST',
          url: '/group/send',
          headers: { 'content-type': 'application/json' },
          payload,
        });
        const ms = performance.now() - t0;
        const body = JSON.parse(answer.body) as { result_code: string; iys_skipped?: number };
        if (body.result_code !== 'TS-1024') throw new Error(`${kind}: ${answer.body}`);
        if (kind === 'commercial') skipped = body.iys_skipped ?? -1;
        // The first round warms up and is not counted.
        if (round > 0) times[kind].push(ms);
        process.stderr.write(`round ${round} ${kind}: ${ms.toFixed(1)} ms\n`);
      }
    }
    await app.close();
    const plain = median(times.plain);
    const commercial = median(times.commercial);
    process.stdout.write(
      `${JSON.stringify({ lookup, consents, rounds, plain_ms: times.plain, commercial_ms: times.commercial, median_plain_ms: plain, median_commercial_ms: commercial, ratio: commercial / plain, target: 1.5, iys_skipped: skipped })}\n`,
    );
  } finally {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
