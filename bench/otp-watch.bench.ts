/**
 * One round of the OTP conversion watch (src/jobs/otp-watch.ts) on a SQLite file store
 * holding `codes` OTP codes of the last two hours (spread over 20 keys and the 100 prefixes
 * 90500-90599, a tenth of them verified), timed in this process (wall and CPU). What a
 * round costs the dispatch thread once a minute at a given OTP traffic: 100 codes a second
 * for two hours is 720,000 codes.
 * Run: npm run build && node dist/bench/otp-watch.bench.js [codes] [rounds]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { openAppContainer } from '../src/main.js';
import { OtpWatch } from '../src/jobs/otp-watch.js';

async function main(): Promise<void> {
  const codes = Number(process.argv[2] ?? 720_000);
  const rounds = Number(process.argv[3] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'haberci-otp-watch-bench-'));
  const file = join(dir, 'haberci.sqlite');
  try {
    const made = await openAppContainer({ dialect: 'sqlite', file });
    await made.close();
    const now = Date.now();
    const db = new BetterSqlite3(file);
    try {
      const insert = db.prepare(
        `insert into otp_codes (message_id, account_id, key_id, sandbox, destination, prefix, code_hash, sealed_text,
           created_at, expires_at, max_tries, tries, verified_at) values (?, ?, ?, 0, ?, ?, 'h', null, ?, ?, 5, 0, ?)`,
      );
      const fill = db.transaction((from: number, to: number) => {
        for (let i = from; i < to; i += 1) {
          const at = now - 7_200_000 + Math.floor((i * 7_200_000) / codes);
          const prefix = `905${String(i % 100).padStart(2, '0')}`;
          insert.run(
            i + 1,
            1 + (i % 20),
            1 + (i % 20),
            `${prefix}${String(i).padStart(7, '0')}`,
            prefix,
            at,
            at + 300_000,
            i % 10 === 0 ? at + 20_000 : null,
          );
        }
      });
      for (let from = 0; from < codes; from += 100_000) fill(from, Math.min(codes, from + 100_000));
    } finally {
      db.close();
    }
    const runtime = await openAppContainer({ dialect: 'sqlite', file });
    try {
      const watch = new OtpWatch(runtime.store, { now: () => now }, pino({ level: 'silent' }));
      const wall: number[] = [];
      const cpu: number[] = [];
      const blocked: number[] = [];
      for (let round = 0; round < rounds + 1; round += 1) {
        // The longest the event loop waited during the round: how long the round blocks its thread at once.
        const loop = monitorEventLoopDelay({ resolution: 10 });
        loop.enable();
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const held = await watch.roundOnce();
        const ms = performance.now() - t0;
        const used = process.cpuUsage(c0);
        loop.disable();
        // The first round warms up; it also places the holds (every pair: none is verified enough).
        if (round > 0) {
          wall.push(ms);
          cpu.push((used.user + used.system) / 1000);
          blocked.push(loop.max / 1e6);
        }
        process.stderr.write(
          `round ${round}: ${ms.toFixed(0)} ms, longest block ${(loop.max / 1e6).toFixed(0)} ms, held ${held.length}\n`,
        );
      }
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
      process.stdout.write(
        `${JSON.stringify({ codes, rounds, median_wall_ms: Math.round(median(wall)), median_cpu_ms: Math.round(median(cpu)), median_longest_block_ms: Math.round(median(blocked)) })}\n`,
      );
    } finally {
      await runtime.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
