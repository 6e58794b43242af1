/**
 * Every admin command answers in one shape: one JSON object whose fields are snake_case
 * and whose times are ISO 8601 (UTC), never epoch milliseconds. `haberci --version`
 * prints the package's version.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { adminOk, haberci, storeFolder } from '../helpers/cli.js';
import { openAppContainer } from '../../src/main.js';
import { sqliteFileIn } from '../../src/adapters/store/index.js';
import { valueOf } from '../helpers/results.js';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What is wrong with the shape of an answer, by path: empty when nothing is. */
function shapeProblems(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => shapeProblems(v, `${path}[${i}]`));
  if (typeof value === 'number' && Math.abs(value) >= 1e11) return [`${path} looks like epoch milliseconds: ${value}`];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = `${path}.${key}`;
    const own: string[] = [];
    if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(key)) own.push(`${at} is not snake_case`);
    if (/(^at|_at|_until)$/.test(key) && v !== null && !(typeof v === 'string' && iso.test(v)))
      own.push(`${at} is not an ISO 8601 time: ${JSON.stringify(v)}`);
    return [...own, ...shapeProblems(v, at)];
  });
}

describe('haberci admin output', { timeout: 180_000 }, () => {
  let dir: string;
  const store = (): string[] => ['--data', dir];
  const answers: Record<string, unknown> = {};
  const answer = async (label: string, args: string[]): Promise<Record<string, unknown>> => {
    const out = await adminOk([...args, ...store()]);
    answers[label] = out;
    return out;
  };

  before(async () => {
    dir = await storeFolder('haberci-output-');
    // A blocked number for blocklist remove to take off, an inbound message for inbound list.
    const runtime = await openAppContainer({ dialect: 'sqlite', file: sqliteFileIn(dir) });
    try {
      const account = await valueOf(
        runtime.admin.createAccount({
          name: 'Seed',
          balanceMain: 0,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      assert.equal((await runtime.services.blocklist.add(account.id, '05321234567')).ok, true);
      await runtime.store.inbound.insert({
        id: 1,
        accountId: account.id,
        from: '905321112233',
        to: '4444',
        text: 'hi',
        receivedAt: Date.now(),
      });
    } finally {
      await runtime.close();
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every command: snake_case fields, ISO 8601 times', async () => {
    await answer('store init', ['store', 'init']);
    const account = String(
      (await answer('account create', ['account', 'create', '--name', 'Shape', '--balance', '10'])).id,
    );
    await answer('account update', ['account', 'update', '--id', account, '--per-minute-limit', '5']);
    await answer('account show', ['account', 'show', '--id', account]);
    await answer('account topup', ['account', 'topup', '--id', account, '--amount', '5']);
    await answer('account debit', ['account', 'debit', '--id', account, '--amount', '1', '--reason', 'shape']);
    const sender = String(
      (await answer('sender-id add', ['sender-id', 'add', '--account', account, '--title', 'SHAPE'])).id,
    );
    await answer('sender-id list', ['sender-id', 'list', '--account', account]);
    await answer('sender-id remove', ['sender-id', 'remove', '--id', sender]);
    const hook = ['--webhook-url', 'http://127.0.0.1:9/hook', '--webhook-secret', 'shape-secret'];
    const key = String(
      (await answer('key create', ['key', 'create', '--account', account, '--expires', '2099-12-31', ...hook])).id,
    );
    await answer('key update', ['key', 'update', '--id', key, '--hourly-limit', '9']);
    await answer('key show', ['key', 'show', '--id', key]);
    await answer('key pause', ['key', 'pause', '--id', key]);
    await answer('key reactivate', ['key', 'reactivate', '--id', key]);
    const test = await answer('key test-webhook', ['key', 'test-webhook', '--id', key]);
    await answer('webhook deliveries', ['webhook', 'deliveries', '--key', key]);
    await answer('webhook redeliver', ['webhook', 'redeliver', '--event', String(test.event_id)]);
    const rotated = String((await answer('key rotate', ['key', 'rotate', '--id', key, '--keep-old'])).id);
    await answer('key revoke', ['key', 'revoke', '--id', rotated]);
    await answer('blocklist remove', ['blocklist', 'remove', '--account', '1', '--number', '05321234567']);
    await answer('inbound-route add', ['inbound-route', 'add', '--account', account, '--number', '4444']);
    await answer('inbound-route list', ['inbound-route', 'list']);
    await answer('inbound list', ['inbound', 'list', '--account', '1']);
    await answer('inbound-route remove', ['inbound-route', 'remove', '--number', '4444']);

    const problems = Object.entries(answers).flatMap(([label, out]) => shapeProblems(out).map((p) => `${label}: ${p}`));
    assert.deepEqual(problems, []);
    // The checks above saw times of every kind: they would have caught epoch milliseconds.
    assert.match(String((answers['sender-id add'] as { created_at?: unknown }).created_at), iso);
    assert.match(String((answers['key rotate'] as { old_key_valid_until?: unknown }).old_key_valid_until), iso);
    assert.ok(JSON.stringify(answers['webhook deliveries']).includes('"at":"'), 'an attempt with its time');
    assert.match(
      String((answers['inbound list'] as { messages: { received_at?: unknown }[] }).messages[0]?.received_at),
      iso,
    );
    assert.equal(JSON.stringify(answers).includes('shape-secret'), false, 'no webhook secret is printed');
  });

  it('the shape check itself refuses camelCase and epoch milliseconds', () => {
    assert.deepEqual(
      shapeProblems({ id: 1, accountId: 2, created_at: 1_780_000_000_000, list: [{ done_at: 'yesterday' }] }),
      [
        '$.accountId is not snake_case',
        '$.created_at is not an ISO 8601 time: 1780000000000',
        '$.created_at looks like epoch milliseconds: 1780000000000',
        '$.list[0].done_at is not an ISO 8601 time: "yesterday"',
      ],
    );
  });
});

describe('haberci --version', () => {
  it('prints the version in package.json and exits 0', async () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const run = await haberci(['--version']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${manifest.version}\n`);
  });
});
