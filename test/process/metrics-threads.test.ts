/**
 * The one /metrics of a real `serve` process gathers every thread's counts: messages
 * accepted (HTTP thread), submitted and settled (dispatch thread, here over SMPP to
 * smsc-sim, with its connection's binds, submits, refusals and receipt lag), webhook
 * attempts (webhook thread), every thread's event-loop lag and write-lock waits, and the
 * backlog read from the store. On PostgreSQL, two processes on one store each count their own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { startSimulator, stop } from '../helpers/smsc-sim.js';
import type { Simulator } from '../helpers/smsc-sim.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { readFileSync } from 'node:fs';
import { metricNames, opsAddress, sample, scrape, scrapeUntil } from '../helpers/metrics-text.js';
import { waitFor } from '../helpers/wait-for.js';

/** The metric names a PromQL expression uses (those of haberci and of Node's default metrics). */
function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:haberci|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1] ?? '');
}

const messages = (outcome: string): string => `haberci_messages_total{outcome="${outcome}"}`;
const conn = 'carrier="sim",connection="0"';

describe('/metrics gathers the job threads of serve (SQLite, SMPP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-metrics-threads-'));
  let sim: Simulator;
  let server: ServerProcess;
  let receiver: Receiver;
  let sender: ProvisionedSender;
  let ops = '';
  before(async () => {
    // Every second submit is refused (throttled) and retried; receipts after 100 ms.
    sim = await startSimulator(['--port', '0', '--throttle-share', '0.5', '--receipt-delay-ms', '100']);
    const connection = {
      name: 'sim',
      host: '127.0.0.1',
      port: sim.port,
      systemId: 'haberci',
      password: 'pw',
      enquireLinkMs: 500,
      reconnectMinMs: 50,
      reconnectMaxMs: 200,
    };
    writeFileSync(join(dir, 'smpp.json'), JSON.stringify({ connections: [connection], defaultRoute: 'sim' }));
    receiver = await startReceiver();
    server = await startServer([
      '--data',
      dir,
      '--smpp-config',
      join(dir, 'smpp.json'),
      '--demo',
      'false',
      '--ops-port',
      '0',
      '--requests-per-second',
      '0',
      '--webhook-allow-private',
      'true',
    ]);
    ops = opsAddress(server.output());
    sender = await provisionSender(['--data', dir], 'Threads', 1000, [
      '--webhook-url',
      `${receiver.url}/hook`,
      '--webhook-secret',
      'a-secret-of-enough-length',
    ]);
  });
  after(async () => {
    await stop(server.child);
    // Killed by the second test: its exit code stays null, so stop() would wait forever.
    if (sim.child.signalCode === null) await stop(sim.child);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts messages from accept to receipt, the SMPP connection and the webhook attempts, each by the right amount', async () => {
    assert.notEqual(ops, '', server.output());
    const bound = await scrapeUntil(
      ops,
      'the SMPP connection to bind',
      (t) => sample(t, `haberci_smpp_connection_bound{${conn}}`) === 1,
    );
    const before = bound;
    // Delivered twice, failed (0000), expired (0001), and one with no receipt ever (0002).
    const to = ['905321234567', '905321234568', '905321230000', '905321230001', '905321230002'];
    for (const number of to) {
      const answer = await postJson(`${server.url}/sms/send`, {
        api_key: sender.apiKey,
        sentto: number,
        title: 'ACME',
        text: 'metrics',
      });
      assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    }
    const delta = (text: string, series: string): number => sample(text, series) - sample(before, series);
    const settled = await scrapeUntil(
      ops,
      'the receipts and their webhooks',
      (t) =>
        delta(t, messages('delivered')) === 2 &&
        delta(t, messages('failed')) === 1 &&
        delta(t, messages('expired')) === 1 &&
        delta(t, 'haberci_webhook_attempts_total{outcome="delivered"}') >= 9,
    );
    // Wait until the last webhook attempts have landed and been counted, then read that exposition.
    const after = await scrapeUntil(ops, 'every webhook the receiver got to be counted', (t) => {
      const got = receiver.requests.length;
      return (
        got >= 9 &&
        delta(t, 'haberci_webhook_attempts_total{outcome="delivered"}') === got &&
        delta(t, 'haberci_webhook_attempt_duration_seconds_count') === got
      );
    });
    assert.equal(delta(after, messages('accepted')), 5);
    assert.equal(delta(after, messages('submitted')), 5);
    assert.equal(delta(after, messages('delivered')), 2);
    assert.equal(delta(after, messages('failed')), 1);
    assert.equal(delta(after, messages('expired')), 1);
    // Five parts answered OK; the refused ones (every second submit) were counted apart and retried.
    assert.equal(delta(after, `haberci_smpp_submits_total{${conn}}`), 5);
    assert.ok(delta(after, `haberci_smpp_refusals_total{${conn},status="ESME_RTHROTTLED"}`) >= 2, after);
    // Four receipts came (none for 0002), each 100 ms after the SMSC answered the submit. The
    // lag is counted from when the dispatcher records that answer, which a loaded machine does
    // late (one run here summed under 0.4 s): so each is past 50 ms, not each past 100.
    assert.equal(delta(after, `haberci_smpp_receipt_lag_seconds_count{${conn}}`), 4);
    assert.equal(delta(after, `haberci_smpp_receipt_lag_seconds_bucket{le="0.05",${conn}}`), 0);
    assert.ok(delta(after, `haberci_smpp_receipt_lag_seconds_sum{${conn}}`) >= 0.2, after);
    assert.equal(sample(after, `haberci_smpp_window_in_use{${conn}}`), 0);
    // sms.sent for each of five, sms.delivered twice, sms.failed for the failed and the expired one: all answered 200.
    const hooks = receiver.requests.length;
    assert.equal(hooks, 9, receiver.requests.map((r) => r.body).join('\n'));
    assert.equal(delta(after, 'haberci_webhook_attempts_total{outcome="delivered"}'), hooks);
    assert.equal(delta(after, 'haberci_webhook_attempts_total{outcome="retrying"}'), 0);
    assert.equal(delta(after, 'haberci_webhook_attempt_duration_seconds_count'), hooks);
    assert.ok(settled.length > 0);
    // Every thread's event loop and write-lock waits.
    for (const thread of ['http', 'dispatch', 'webhooks']) {
      assert.match(after, new RegExp(`^haberci_event_loop_lag_p99_seconds\\{thread="${thread}"\\} [0-9.e-]+$`, 'm'));
      assert.match(after, new RegExp(`^haberci_event_loop_lag_max_seconds\\{thread="${thread}"\\} [0-9.e-]+$`, 'm'));
      assert.ok(
        delta(after, `haberci_store_write_lock_wait_seconds_count{thread="${thread}"}`) > 0,
        `${thread} waited for the write lock: ${after}`,
      );
    }
    const labels = after
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .map((l) => /\{[^}]*\}/.exec(l)?.[0] ?? '')
      .join('\n');
    assert.equal(
      /a-secret|127\.0\.0\.1|\/hook|(?<!le)="[0-9]{3,}"/.test(labels),
      false,
      `no key, secret, URL or number in a label: ${labels}`,
    );
  });

  it('the Grafana dashboard and the alert rules use only metrics a real /metrics has after traffic', async () => {
    const exposed = metricNames(await scrape(ops));
    const dashboard = JSON.parse(readFileSync('docs/grafana/haberci.json', 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const dashboardExprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    assert.ok(dashboard.panels.length >= 12, 'a panel for each part');
    const alertExprs = [...readFileSync('docs/alerts.yml', 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map(
      (m) => m[1] ?? '',
    );
    assert.ok(alertExprs.length >= 8, 'alert rules found');
    for (const [where, exprs] of [
      ['dashboard', dashboardExprs],
      ['alerts', alertExprs],
    ] as const) {
      const used = new Set(exprs.flatMap(namesIn));
      assert.ok(used.size >= 10, `${where} uses the metrics`);
      const missing = [...used].filter((name) => !exposed.has(name));
      assert.deepEqual(missing, [], `${where} names metrics /metrics does not have`);
    }
    // What the alerts must watch.
    const alerts = alertExprs.join('\n');
    for (const name of [
      'haberci_smpp_connection_bound',
      'haberci_dispatch_backlog',
      'haberci_webhook_attempts_total',
      'haberci_smpp_receipt_lag_seconds_bucket',
    ])
      assert.ok(alerts.includes(name), name);
  });

  it('reads the backlog from the store at each scrape, and sees the SMSC go away', async () => {
    const answer = await postJson(`${server.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: '905321234569',
      title: 'ACME',
      text: 'later',
      scheduled_date: '2099-01-01',
      scheduled_time: '10:00',
    });
    assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
    const text = await scrape(ops);
    assert.equal(sample(text, 'haberci_scheduled_messages'), 1, "the scheduled send's recipient");
    assert.equal(sample(text, 'haberci_dispatch_backlog'), 0);
    assert.equal(sample(text, 'haberci_webhook_backlog'), 0);
    assert.equal(sample(text, 'haberci_webhook_oldest_pending_age_seconds'), 0);
    sim.child.kill('SIGKILL');
    await new Promise((r) => sim.child.once('exit', r));
    await scrapeUntil(
      ops,
      'the connection to be unbound',
      (t) => sample(t, `haberci_smpp_connection_bound{${conn}}`) === 0,
    );
    // With no carrier, an accepted message waits in the store: the backlog says so.
    const waiting = await postJson(`${server.url}/sms/send`, {
      api_key: sender.apiKey,
      sentto: '905321234570',
      title: 'ACME',
      text: 'waits',
    });
    assert.equal(waiting.body.result_code, 'TS-1024');
    await scrapeUntil(
      ops,
      'the message to wait in the backlog',
      (t) => sample(t, 'haberci_dispatch_backlog') + sample(t, 'haberci_scheduled_messages') >= 2,
    );
  });
});

const pgUrl = process.env.HABERCI_TEST_DATABASE ?? '';

describe('/metrics of two serve processes on one PostgreSQL store', () => {
  const skip = pgUrl === '' ? 'HABERCI_TEST_DATABASE is not set' : false;
  const database = `haberci_metrics_${randomBytes(5).toString('hex')}`;
  let control: pg.Client | null = null;
  const servers: ServerProcess[] = [];
  const url = (): string => {
    const u = new URL(pgUrl);
    u.pathname = `/${database}`;
    return u.toString();
  };
  before(async () => {
    if (skip) return;
    control = new pg.Client({ connectionString: pgUrl });
    await control.connect();
    await control.query(`create database ${database}`);
  });
  after(async () => {
    for (const server of servers) await stop(server.child);
    if (control) {
      await control.query(`drop database if exists ${database} with (force)`);
      await control.end();
    }
  });

  it('each process counts its own sends, submits and receipts', { skip }, async () => {
    const args = [
      '--database',
      url(),
      '--demo',
      'false',
      '--ops-port',
      '0',
      '--requests-per-second',
      '0',
      '--sim-delay-ms',
      '50',
    ];
    servers.push(await startServer(args));
    servers.push(await startServer(args));
    const sender = await provisionSender(['--database', url()], 'Two', 1000);
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const opsA = opsAddress(a.output());
    const opsB = opsAddress(b.output());
    assert.notEqual(opsA, opsB);
    const send = async (server: ServerProcess, n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const answer = await postJson(`${server.url}/sms/send`, {
          api_key: sender.apiKey,
          sentto: `90532123${String(4000 + i)}`,
          title: 'ACME',
          text: 'pg',
        });
        assert.equal(answer.body.result_code, 'TS-1024', JSON.stringify(answer.body));
      }
    };
    await send(a, 2);
    await send(b, 3);
    // Handed off to each process's own dispatcher, which mostly delivers what it accepted;
    // but both workers claim from one store, and a loaded machine (a hand-off slower than
    // the other's poll) lets one deliver the other's. So: each counts what it accepted, and
    // what it submitted and delivered itself, and together they delivered all five.
    const delivered = (t: string): number => sample(t, messages('delivered'));
    await waitFor('the two processes to deliver all five', async () => {
      const [ta, tb] = [await scrape(opsA), await scrape(opsB)];
      return delivered(ta) + delivered(tb) === 5;
    });
    const [textA, textB] = [await scrape(opsA), await scrape(opsB)];
    assert.equal(sample(textA, messages('accepted')), 2);
    assert.equal(sample(textB, messages('accepted')), 3);
    // Five submits in all, never a sixth (a message submitted by both would be one). Which
    // process counts a receipt need not be the one that submitted its message: a receipt that
    // comes before the submit's record is committed (the simulator answers in 50 ms) is kept
    // as unmatched, and whichever dispatcher next retries the unmatched applies it. So per
    // process only the totals are asserted.
    const counts = JSON.stringify({
      a: { submitted: sample(textA, messages('submitted')), delivered: delivered(textA) },
      b: { submitted: sample(textB, messages('submitted')), delivered: delivered(textB) },
    });
    assert.equal(sample(textA, messages('submitted')) + sample(textB, messages('submitted')), 5, counts);
    assert.equal(delivered(textA) + delivered(textB), 5, counts);
    assert.equal(sample(textA, 'haberci_api_requests_total{endpoint="/sms/send",result_code="TS-1024"}'), 2);
    assert.equal(sample(textB, 'haberci_api_requests_total{endpoint="/sms/send",result_code="TS-1024"}'), 3);
    // PostgreSQL has no write lock between threads: nothing waits for one.
    assert.equal(sample(textA, 'haberci_store_write_lock_wait_seconds_count{thread="http"}'), 0);
    // The backlog is the store's, the same for both.
    assert.equal(sample(textA, 'haberci_dispatch_backlog'), sample(textB, 'haberci_dispatch_backlog'));
  });
});
