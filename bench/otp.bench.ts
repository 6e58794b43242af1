/**
 * `/otp/send` and `/otp/verify` beside `/sms/send` on SQLite: requests a second, p99 and the
 * server CPU a request (every thread of the `serve` process, from /proc's schedstat, as the
 * gate measures it), `--worker false` (accept only, as the gate's send). Rounds interleave the
 * three loads in a rotating order; each /otp/send goes to a number of its own (as real
 * traffic), and each /otp/verify checks one code sent in the round with its right code, once.
 * The key's velocity limits are off so that nothing is refused, but the guard still reads
 * what it always reads. Then the guard's own cost: its reads (the key's settings, the
 * account's countries, the standing hold; the counts per number and prefix, the prefix's
 * rate) and verdicts (the rate's write with the code is not in it), timed in this process on the same
 * store, as a share of /otp/send's server CPU (target: at most 10 %).
 * Run: npm run build && node dist/bench/otp.bench.js [rounds] [requests]
 */
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import autocannon from 'autocannon';
import { sqliteStore, startHaberci } from './lib/haberci.js';
import { repoRoot } from './lib/server-process.js';
import type { ServerProcess } from './lib/server-process.js';
import { cpuSecondsOf } from './lib/processes.js';
import { smsSendBody } from './lib/haberci-load.js';
import { openAppContainer } from '../src/main.js';
import { effectiveOtpSettings, otpPlaceVerdict, otpVelocityVerdict } from '../src/domain/otp-guard.js';
import { minuteOf, rateAt } from '../src/domain/otp-prefix-rate.js';
import { destinationPrefixOf } from '../src/domain/calling-codes.js';

const run = promisify(execFile);
const bin = join(repoRoot, 'bin', 'haberci');
const connections = 10;

async function adminJson(args: string[], flags: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(bin, ['admin', ...args, ...flags], { cwd: repoRoot });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const cpuOf = (server: ServerProcess): number => cpuSecondsOf(server.pid);

interface Measured {
  rps: number;
  p99: number;
  cpuUs: number;
}

let numbered = 0;
/** A number of its own for each code, spread over 100 prefixes (as the velocity limits see real traffic). */
const nextMobile = (): string => {
  numbered += 1;
  return `905${String(30 + (numbered % 100)).padStart(2, '0')}${String(numbered).padStart(7, '0')}`;
};

async function load(
  server: ServerProcess,
  path: string,
  amount: number,
  body: () => string,
  onAnswer: (text: string) => void = () => undefined,
): Promise<Measured> {
  let refused = 0;
  const before = cpuOf(server);
  const started = performance.now();
  // autocannon ends a run at its next one-second tick: the last answer's time is the run's end.
  let lastAt = started;
  const result = await autocannon({
    url: `${server.url}${path}`,
    connections,
    pipelining: 1,
    amount,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: body() }),
        onResponse: (status, text) => {
          lastAt = performance.now();
          if (status !== 200 || !text.startsWith('{"result":true')) refused += 1;
          else onAnswer(text);
        },
      },
    ],
  });
  const cpuUs = ((cpuOf(server) - before) * 1e6) / amount;
  const seconds = (lastAt - started) / 1000;
  if (result.errors + result.timeouts + result.non2xx + refused > 0)
    throw new Error(`${path}: ${result.errors} errors, ${result.timeouts} timeouts, ${refused} refused answers`);
  return { rps: amount / seconds, p99: result.latency.p99, cpuUs };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const requests = Number(process.argv[3] ?? 3000);
  const store = await sqliteStore();
  try {
    const account = await adminJson(['account', 'create', '--name', 'Bench', '--balance', '1000000000'], store.flags);
    const accountId = String(account.id);
    await adminJson(['sender-id', 'add', '--account', accountId, '--title', 'BENCH'], store.flags);
    const key = await adminJson(['key', 'create', '--account', accountId], store.flags);
    const apiKey = String(key.api_key);
    const keyId = Number(key.id);
    // A key that sends nothing: the guard's fixed cost, with no codes to count.
    const quietKeyId = Number((await adminJson(['key', 'create', '--account', accountId], store.flags)).id);
    await adminJson(
      [
        'key',
        'otp',
        '--id',
        String(keyId),
        '--per-number-hour',
        '0',
        '--per-number-day',
        '0',
        '--per-prefix-minute',
        '0',
      ],
      store.flags,
    );
    const server = await startHaberci(store, 0, ['--worker', 'false']);
    const results: Record<'sms-send' | 'otp-send' | 'otp-verify', Measured[]> = {
      'sms-send': [],
      'otp-send': [],
      'otp-verify': [],
    };
    try {
      const smsBody = smsSendBody(apiKey);
      const sent: { sms_id: number; otp_code: number }[] = [];
      const otpSend = (): Promise<Measured> =>
        load(
          server,
          '/otp/send',
          requests,
          () => JSON.stringify({ api_key: apiKey, mobile: nextMobile() }),
          (text) => sent.push(JSON.parse(text) as { sms_id: number; otp_code: number }),
        );
      const otpVerify = (): Promise<Measured> => {
        const codes = sent.splice(0, sent.length);
        let i = 0;
        return load(server, '/otp/verify', codes.length, () => {
          const c = codes[i % codes.length];
          i += 1;
          return JSON.stringify({ api_key: apiKey, sms_id: c?.sms_id, code: c?.otp_code });
        });
      };
      const smsSend = (): Promise<Measured> => load(server, '/sms/send', requests, () => smsBody);
      process.stderr.write('warming up\n');
      await smsSend();
      await otpSend();
      await otpVerify();
      for (let round = 0; round < rounds; round += 1) {
        // /otp/verify needs the codes of the round's /otp/send: the two go in that order, and
        // /sms/send before, between or after them.
        const orders = [
          ['sms-send', 'otp-send', 'otp-verify'],
          ['otp-send', 'sms-send', 'otp-verify'],
          ['otp-send', 'otp-verify', 'sms-send'],
        ] as const;
        for (const name of orders[round % orders.length] ?? orders[0]) {
          const m = name === 'sms-send' ? await smsSend() : name === 'otp-send' ? await otpSend() : await otpVerify();
          results[name].push(m);
          process.stderr.write(
            `round ${round} ${name}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99} ms, ${m.cpuUs.toFixed(0)} µs CPU\n`,
          );
        }
      }
    } finally {
      await server.stop();
    }

    // The guard alone, in this process, on the store the server filled.
    const runtime = await openAppContainer({ dialect: 'sqlite', file: join(store.dataDir ?? '', 'haberci.sqlite') });
    let guardUs = 0;
    let quietGuardUs = 0;
    const guardCalls = 5000;
    try {
      const warm = async (n: number, id = keyId): Promise<number> => {
        const cpu = process.cpuUsage();
        for (let i = 0; i < n; i += 1) {
          const mobile = nextMobile();
          // What OtpService.accept does: the read before the send and its verdict, then the
          // counts of the send's transaction and theirs (here outside a transaction).
          const prefix = destinationPrefixOf(mobile);
          const now = Date.now();
          const read = await runtime.store.otp.guardReads(id, Number(accountId), prefix);
          const settings = effectiveOtpSettings(read.settings);
          otpPlaceVerdict(settings, read.accountCountries, mobile, read.held);
          const counts = await runtime.store.otp.velocityReads(id, mobile, prefix, now, settings.perPrefixMinute > 0);
          otpVelocityVerdict(settings, { ...counts, prefixRate: rateAt(counts.prefixRate, minuteOf(now)) }, now);
        }
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / n;
      };
      await warm(1000);
      guardUs = await warm(guardCalls);
      quietGuardUs = await warm(guardCalls, quietKeyId);
    } finally {
      await runtime.close();
    }
    const summary = Object.fromEntries(
      Object.entries(results).map(([name, ms]) => [
        name,
        {
          rps: Math.round(median(ms.map((m) => m.rps))),
          p99_ms: median(ms.map((m) => m.p99)),
          cpu_us: Math.round(median(ms.map((m) => m.cpuUs))),
        },
      ]),
    ) as Record<string, { rps: number; p99_ms: number; cpu_us: number }>;
    const otpSendCpu = summary['otp-send']?.cpu_us ?? NaN;
    process.stdout.write(
      `${JSON.stringify({
        rounds,
        requests,
        connections,
        codes_stored: numbered,
        ...summary,
        guard_us: Math.round(guardUs * 10) / 10,
        guard_share_of_otp_send: Math.round((guardUs / otpSendCpu) * 1000) / 10,
        guard_us_no_codes: Math.round(quietGuardUs * 10) / 10,
        guard_share_no_codes: Math.round((quietGuardUs / otpSendCpu) * 1000) / 10,
        target_share: 10,
      })}\n`,
    );
  } finally {
    await store.dispose();
  }
}

await main();
