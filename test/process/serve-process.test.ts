/**
 * The real executable, as scripts outside the repository drive it (interfaces.md):
 * `./bin/haberci serve` as a child process on a free port, provisioned by `haberci admin ...`
 * while it runs, called over real HTTP, stopped by SIGTERM. The admin commands run in this
 * process (test/helpers/cli.ts, the binary's own command tree): the binary's admin exits and
 * output are proven once per command family in test/process/admin-binary.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminFails as adminFailsWith, haberci } from '../helpers/cli.js';
import { serverReadyMs } from '../helpers/server-process.js';

/** The repository root: this file runs as dist/test/process/serve-process.test.js. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = './bin/haberci';

/**
 * The environment without any HABERCI_* option of the caller's, plus the given ones. The
 * test runner's NODE_TEST_CONTEXT is left out too: a child node that inherits it takes
 * itself for a test file and reports to the runner instead of simply running.
 */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('HABERCI_') && k !== 'NODE_TEST_CONTEXT') out[k] = v;
  // No start-up warm-up (docs/decisions.md): it would add about four seconds to every server a test starts.
  return { ...out, HABERCI_WARM_UP: '0', ...extra };
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `haberci serve`, with everything it has printed so far. */
class Server {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;

  constructor(args: string[], extraEnv: Record<string, string> = {}) {
    this.child = spawn(bin, ['serve', ...args], { cwd: root, env: env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((done) => this.child.once('exit', (code, signal) => done({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits for a stdout line that passes the test; fails on exit or after a while. */
  // As long as startServer's bound (serverReadyMs): a start took over 20 s on a loaded machine.
  async waitForLine(test: (line: string) => boolean, ms = serverReadyMs): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const line = this.stdout.split('\n').find(test);
      if (line !== undefined) return line;
      if (!this.running)
        throw new Error(`serve exited before the line appeared\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`no such line within ${ms} ms\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async waitForExit(ms = 20_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`serve did not exit within ${ms} ms\nstdout: ${this.stdout}\nstderr: ${this.stderr}`)),
        ms,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  terminate(): void {
    this.child.kill('SIGTERM');
  }

  /** Last resort for a test that failed half-way: the process must not outlive the suite. */
  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  /** The JSON log lines (pino). */
  logs(): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runBin(args: string[], extraEnv: Record<string, string> = {}, ms = 20_000): Promise<Run> {
  const child = spawn(bin, args, { cwd: root, env: env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

// The timeout only bounds a hung run: alone it takes about 40 s; three files at a time on
// two cores, 105 s was seen.
describe('haberci serve, as a process', { timeout: 180_000 }, () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  let data: string;
  let port: number;
  let base: string;
  let server: Server;

  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-serve-'));
    dirs.push(dir);
    return dir;
  }

  function start(args: string[], extraEnv: Record<string, string> = {}): Server {
    const s = new Server(args, extraEnv);
    servers.push(s);
    return s;
  }

  /** `haberci admin ...` against the running server's store; success is parsed JSON. */
  async function admin(...args: string[]): Promise<Record<string, unknown>> {
    const run = await haberci(['admin', ...args, '--data', data]);
    assert.equal(run.code, 0, `admin ${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stderr, '');
    return JSON.parse(run.stdout) as Record<string, unknown>;
  }

  /** An admin command that must fail: exit 1, one line on stderr, nothing on stdout. */
  function adminFails(...args: string[]): Promise<string> {
    return adminFailsWith([...args, '--data', data]);
  }

  async function call(
    path: string,
    apiKey: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ api_key: apiKey }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function balanceCode(apiKey: string): Promise<string> {
    return String((await call('/balance/', apiKey)).body.result_code);
  }

  before(async () => {
    data = tempDir();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = start(['--port', String(port), '--host', '127.0.0.1', '--data', data]);
    await server.waitForLine((l) => l.includes('haberci ready on'));
  });

  after(async () => {
    for (const s of servers) s.kill();
    await Promise.all(servers.map((s) => s.exited));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  let demoKey: string;

  it('warms the request path up before the port opens, on a throwaway store that leaves nothing behind', async () => {
    const scratch = tempDir();
    const own = tempDir();
    const warmed = start(['--port', '0', '--data', own, '--demo', 'false', '--warm-up', '60'], { TMPDIR: scratch });
    await warmed.waitForLine((l) => l.includes('haberci ready on'));
    const logs = warmed.logs();
    const warm = logs.findIndex((l) => l.msg === 'request path warmed up');
    const ready = logs.findIndex((l) => typeof l.msg === 'string' && l.msg.includes('haberci ready on'));
    assert.ok(warm >= 0, warmed.stdout);
    assert.ok(warm < ready, 'the warm-up ends before the ready line');
    // Every warm-up request took the intended path (answered 200), not an error path.
    assert.equal(logs[warm]?.requests, 60);
    assert.equal(logs[warm]?.unexpected, 0);
    // Its store was a temporary folder of its own, removed; the real store got no account.
    assert.deepEqual(readdirSync(scratch), []);
    const show = await haberci(['admin', 'account', 'show', '--id', '1', '--data', own]);
    assert.equal(show.code, 1);
    assert.match(show.stderr, /no account with id 1/);
    // The job threads work on the real store: a send accepted now is delivered there.
    const url = String(logs[ready]?.address);
    const made = async (args: string[]): Promise<Record<string, unknown>> =>
      JSON.parse((await haberci(['admin', ...args, '--data', own])).stdout) as Record<string, unknown>;
    const account = String((await made(['account', 'create', '--name', 'Live', '--balance', '10'])).id);
    await made(['sender-id', 'add', '--account', account, '--title', 'LIVE']);
    const apiKey = String((await made(['key', 'create', '--account', account])).api_key);
    const post = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
      (await (
        await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: apiKey, ...body }),
        })
      ).json()) as Record<string, unknown>;
    const sent = await post('/sms/send', { sentto: '905321234567', title: 'LIVE', text: 'after the warm-up' });
    assert.equal(sent.result_code, 'TS-1024', JSON.stringify(sent));
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 200 && status.result_code !== 'TS-1064'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await post('/sms/status', { sms_id: sent.sms_id });
    }
    assert.equal(status.result_code, 'TS-1064', JSON.stringify(status));
    warmed.terminate();
    assert.equal((await warmed.waitForExit()).code, 0);
  });

  it('a bad SMPP configuration stops start-up at once, before any warm-up', async () => {
    const own = tempDir();
    const file = join(own, 'smpp.json');
    writeFileSync(
      file,
      JSON.stringify({
        connections: [{ name: 'operator', host: '127.0.0.1', port: 2775, systemId: 'a', password: 'b' }],
        defaultRoute: 'other',
      }),
    );
    const run = await runBin(['serve', '--port', '0', '--data', own, '--smpp-config', file, '--demo', 'false'], {
      HABERCI_WARM_UP: '3000',
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /cannot start the delivery worker: .*defaultRoute: "other" is not a connection name/);
    assert.equal(run.stdout.includes('warmed up'), false, run.stdout);
  });

  it('starts cold, with a warning, when the warm-up cannot run', async () => {
    const cold = start(['--port', '0', '--data', tempDir(), '--demo', 'false', '--warm-up', '10'], {
      TMPDIR: join(tempDir(), 'missing'),
    });
    await cold.waitForLine((l) => l.includes('haberci ready on'));
    const skipped = cold.logs().find((l) => l.msg === 'warm-up skipped: the server starts cold');
    assert.equal(skipped?.level, 40);
    assert.equal(
      cold.logs().some((l) => l.msg === 'request path warmed up'),
      false,
    );
    cold.terminate();
    assert.equal((await cold.waitForExit()).code, 0);
  });

  it('logs one ready line containing the address it listens on', () => {
    const ready = server.logs().filter((l) => typeof l.msg === 'string' && l.msg.includes('ready'));
    assert.equal(ready.length, 1);
    assert.equal(ready[0]?.address, base);
    assert.match(String(ready[0]?.msg), new RegExp(`${base.replace(/\./g, '\\.')}$`));
  });

  it('on first start prints a sandbox key once, with a ready curl line', async () => {
    const keys = [...new Set(server.stdout.match(/hb_(?:test|live)_[A-Za-z0-9_-]+/g) ?? [])];
    assert.equal(keys.length, 1, server.stdout);
    demoKey = keys[0] ?? '';
    assert.match(demoKey, /^hb_test_[A-Za-z0-9_-]{43}$/);
    const curlLines = server.stdout.split('\n').filter((l) => l.includes('curl'));
    assert.equal(curlLines.length, 1);
    assert.ok(curlLines[0]?.includes(`${base}/balance/`));
    assert.ok(curlLines[0]?.includes(demoKey));
    // stdout is not a terminal here: every line of it is JSON, and the key is in one line
    // only, the first-start line's demo_api_key, whatever else is logged.
    const lines = server.stdout.split('\n').filter((l) => l !== '');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line}`);
    const withKey = lines.filter((l) => l.includes(demoKey)).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(withKey.length, 1);
    assert.equal(withKey[0]?.demo_api_key, demoKey);
    assert.match(String(withKey[0]?.try), /^curl /);
  });

  it('the demo key works: balance, sender ID and key check over real HTTP', async () => {
    const balance = await call('/balance/', demoKey);
    assert.equal(balance.status, 200);
    assert.equal(balance.body.result_code, 'TS-1040');
    assert.equal(balance.body.balance_main, 1000);
    const senders = await call('/senderid/check', demoKey);
    assert.deepEqual(
      (senders.body.sender_ids as { title: string }[]).map((s) => s.title),
      ['HABERCI'],
    );
    const check = await call('/auth/post/check/', demoKey);
    assert.equal(check.body.result_code, 'TS-1000');
    assert.equal((check.body.audit_info as Record<string, unknown>).request_ip, '127.0.0.1');
  });

  let accountId: number;
  let keyId: number;
  let apiKey: string;

  it('admin provisions an account, sender IDs and a key while the server runs', async () => {
    const account = await admin(
      'account',
      'create',
      '--name',
      'Acme',
      '--balance',
      '500',
      '--international-balance',
      '20',
      '--global-sending',
      'true',
    );
    assert.equal(typeof account.id, 'number');
    accountId = Number(account.id);
    assert.equal(account.balance_main, 500);
    const [sender, , key] = await Promise.all([
      admin('sender-id', 'add', '--account', String(accountId), '--title', 'ACME'),
      admin('sender-id', 'add', '--account', String(accountId), '--title', 'WAITING', '--status', 'pending'),
      admin('key', 'create', '--account', String(accountId)),
    ]);
    assert.equal(sender.title, 'ACME');
    keyId = Number(key.id);
    apiKey = String(key.api_key);
    assert.match(apiKey, /^hb_live_/);

    const balance = await call('/balance/', apiKey);
    assert.equal(balance.status, 200);
    assert.equal(balance.body.balance_main, 500);
    const check = await call('/auth/post/check/', apiKey);
    assert.equal(check.body.result_code, 'TS-1000');
    assert.deepEqual((check.body.account_summary as Record<string, unknown>).balance, { main: 500, international: 20 });
    assert.equal((check.body.account_summary as Record<string, unknown>).global_sending, true);
    const senders = await call('/senderid/check', apiKey);
    assert.equal(senders.body.sender_ids_count, 1);
    assert.deepEqual(
      (senders.body.sender_ids as { title: string }[]).map((s) => s.title),
      ['ACME'],
    );
  });

  it('account update --status Suspended gives TS-1030, Active restores', async () => {
    const suspended = await admin('account', 'update', '--id', String(accountId), '--status', 'Suspended');
    assert.equal(suspended.status, 'Suspended');
    const answer = await call('/balance/', apiKey);
    assert.equal(answer.status, 403);
    assert.equal(answer.body.result_code, 'TS-1030');
    assert.equal((await call('/auth/post/check/', apiKey)).body.result_code, 'TS-1030');
    await admin('account', 'update', '--id', String(accountId), '--status', 'Active');
    assert.equal(await balanceCode(apiKey), 'TS-1040');
  });

  it('account topup adds credit the next request sees', async () => {
    const topped = await admin('account', 'topup', '--id', String(accountId), '--amount', '250');
    assert.deepEqual(topped, { id: accountId, balance_main: 750, balance_international: 20 });
    assert.equal((await call('/balance/', apiKey)).body.balance_main, 750);
  });

  it('key pause gives TS-1035, reactivate restores', async () => {
    const paused = await admin('key', 'pause', '--id', String(keyId));
    assert.equal(paused.state, 'Paused');
    assert.equal(JSON.stringify(paused).includes(apiKey), false, 'the key itself is never printed again');
    const answer = await call('/balance/', apiKey);
    assert.equal(answer.status, 403);
    assert.equal(answer.body.result_code, 'TS-1035');
    await admin('key', 'reactivate', '--id', String(keyId));
    assert.equal(await balanceCode(apiKey), 'TS-1040');
  });

  it('key rotate without --keep-old: the new key works, the old one is invalid at once', async () => {
    const rotated = await admin('key', 'rotate', '--id', String(keyId));
    const newKey = String(rotated.api_key);
    assert.notEqual(newKey, apiKey);
    assert.equal(rotated.old_key_valid_until, null);
    assert.equal(await balanceCode(newKey), 'TS-1040');
    assert.equal(await balanceCode(apiKey), 'TS-1035');
    keyId = Number(rotated.id);
    apiKey = newKey;
  });

  it('key rotate --keep-old: the old key stays valid (for 24 hours) beside the new one; revoke ends it', async () => {
    const before = Date.now();
    const rotated = await admin('key', 'rotate', '--id', String(keyId), '--keep-old');
    const newKey = String(rotated.api_key);
    const until = Date.parse(String(rotated.old_key_valid_until));
    assert.ok(
      until >= before + 24 * 3600_000 - 60_000 && until <= Date.now() + 24 * 3600_000 + 60_000,
      String(rotated.old_key_valid_until),
    );
    assert.equal(await balanceCode(newKey), 'TS-1040');
    assert.equal(await balanceCode(apiKey), 'TS-1040');

    // Revoking the kept old key rejects it at once, for good.
    const revoked = await admin('key', 'revoke', '--id', String(keyId));
    assert.equal(revoked.state, 'Revoked');
    assert.equal(await balanceCode(apiKey), 'TS-1035');
    assert.match(await adminFails('key', 'reactivate', '--id', String(keyId)), /revoked/);
    assert.equal(await balanceCode(apiKey), 'TS-1035');
    assert.equal(await balanceCode(newKey), 'TS-1040');
    keyId = Number(rotated.id);
    apiKey = newKey;
  });

  it('admin failures print one line on stderr, exit 1 and change nothing', async () => {
    // Independent of each other, so run side by side.
    const failures: [string[], RegExp][] = [
      [['account', 'show', '--id', '9999'], /9999/],
      [['account', 'topup', '--id', '9999', '--amount', '5'], /9999/],
      [['account', 'create', '--name', 'Bad', '--balance', 'x'], /--balance/],
      [['account', 'create', '--balance', '5'], /--name/],
      [['account', 'update', '--id', String(accountId), '--status', 'Closed'], /--status/],
      [['account', 'topup', '--id', String(accountId), '--amount', '-100000'], /--amount/],
    ];
    const messages = await Promise.all(failures.map(([args]) => adminFails(...args)));
    failures.forEach(([args, pattern], i) => assert.match(messages[i] ?? '', pattern, args.join(' ')));

    // Nothing was created or changed by any of them: no account was made in between,
    // and the account is still Active with its balance.
    assert.equal((await admin('account', 'create', '--name', 'After')).id, accountId + 1);
    const answer = await call('/balance/', apiKey);
    assert.equal(answer.body.result_code, 'TS-1040');
    assert.equal(answer.body.balance_main, 750);
  });

  it('SIGTERM stops it with exit code 0 and a stopped log line', async () => {
    server.terminate();
    const exit = await server.waitForExit();
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(
      server.logs().some((l) => l.msg === 'stopped'),
      server.stdout,
    );
    await assert.rejects(fetch(`${base}/balance/`, { method: 'POST' }));
  });

  describe('a second start on the same data', () => {
    let second: Server;
    before(async () => {
      second = start(['--port', String(port), '--host', '127.0.0.1', '--data', data, '--trusted-proxies', '127.0.0.1']);
      await second.waitForLine((l) => l.includes('haberci ready on'));
    });

    it('prints no key and keeps the store', async () => {
      assert.doesNotMatch(second.stdout, /hb_(test|live)_/);
      assert.doesNotMatch(second.stdout, /curl/);
      assert.equal((await call('/balance/', apiKey)).body.balance_main, 750);
      assert.equal(await balanceCode(demoKey), 'TS-1040');
    });

    it('with --trusted-proxies believes X-Forwarded-For from that proxy', async () => {
      const check = await call('/auth/post/check/', apiKey, { 'x-forwarded-for': '10.0.0.1' });
      assert.equal((check.body.audit_info as Record<string, unknown>).request_ip, '10.0.0.1');
    });

    it('a third serve on the taken port exits non-zero with a message naming the port', async () => {
      const third = start(['--port', String(port), '--host', '127.0.0.1', '--data', tempDir()]);
      const exit = await third.waitForExit();
      assert.notEqual(exit.code, 0);
      assert.match(third.stderr, new RegExp(String(port)));
      assert.match(third.stderr, /in use/);
      assert.equal(second.running, true);
    });

    it('stops on SIGTERM with exit code 0', async () => {
      second.terminate();
      assert.deepEqual(await second.waitForExit(), { code: 0, signal: null });
    });
  });

  describe('bad options stop start-up with a message naming them', () => {
    it('--port abc and HABERCI_PORT=abc', async () => {
      const [flag, variable] = await Promise.all([
        runBin(['serve', '--port', 'abc', '--data', tempDir()]),
        runBin(['serve', '--data', tempDir()], { HABERCI_PORT: 'abc' }),
      ]);
      for (const [run, pattern] of [
        [flag, /--port/],
        [variable, /HABERCI_PORT/],
      ] as const) {
        assert.notEqual(run.code, 0, run.stdout);
        assert.match(run.stderr, pattern);
        assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
        assert.doesNotMatch(run.stdout, /ready/);
      }
    });

    it('an --smpp-config the delivery thread cannot load stops start-up before the port opens', async () => {
      const run = await runBin([
        'serve',
        '--port',
        '0',
        '--data',
        tempDir(),
        '--smpp-config',
        join(tempDir(), 'missing.json'),
      ]);
      assert.notEqual(run.code, 0, run.stdout);
      assert.match(run.stderr, /cannot start the delivery worker: .*missing\.json/);
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
      assert.doesNotMatch(run.stdout, /ready/);
    });
  });
});
