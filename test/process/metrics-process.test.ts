/**
 * The operations listener of a real `haberci serve --ops-port 0`: GET /metrics in Prometheus's
 * text format counts API requests by endpoint and result_code (unknown paths as `other`,
 * the probes not at all) and times them by endpoint, beside Node's default metrics; the
 * listener answers the probes too. Without --ops-port there is none.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, provisionSender, startServer } from '../helpers/server-process.js';
import type { ProvisionedSender, ServerProcess } from '../helpers/server-process.js';
import { stop } from '../helpers/smsc-sim.js';

/** The value of one sample line (`name{labels} value`), 0 when the series does not exist yet. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('the operations listener', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-ops-'));
  let server: ServerProcess;
  let sender: ProvisionedSender;
  let ops = '';
  before(async () => {
    server = await startServer(['--data', dir, '--demo', 'false', '--ops-port', '0', '--requests-per-second', '0']);
    ops = /operations listener on (http:\/\/[^\s"]+)/.exec(server.output())?.[1] ?? '';
    sender = await provisionSender(['--data', dir], 'Ops', 100);
  });
  after(async () => {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  });

  const metrics = async (): Promise<string> => {
    const response = await fetch(`${ops}/metrics`);
    assert.equal(response.status, 200);
    assert.match(String(response.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it('counts API requests by endpoint and result_code, and times them by endpoint', async () => {
    assert.notEqual(ops, '', server.output());
    const balanceOk = 'haberci_api_requests_total{endpoint="/balance/",result_code="TS-1040"}';
    const balanceNoKey = 'haberci_api_requests_total{endpoint="/balance/",result_code="TS-1050"}';
    const sendOk = 'haberci_api_requests_total{endpoint="/sms/send",result_code="TS-1024"}';
    const other = 'haberci_api_requests_total{endpoint="other",result_code="TS-404"}';
    const balanceTimed = 'haberci_api_request_duration_seconds_count{endpoint="/balance/"}';
    const before = await metrics();

    const balance = await postJson(`${server.url}/balance/`, { api_key: sender.apiKey });
    assert.equal(balance.body.result_code, 'TS-1040', JSON.stringify(balance.body));
    for (let i = 0; i < 2; i++) await postJson(`${server.url}/balance/`, {});
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await postJson(`${server.url}/sms/send`, {
            api_key: sender.apiKey,
            sentto: '905321234567',
            title: 'ACME',
            text: `hi ${i}`,
          })
        ).body.result_code,
        'TS-1024',
      );
    for (const path of ['/nope', '/nope?x=1', '/sms/other'])
      assert.equal((await postJson(`${server.url}${path}`, {})).status, 404);
    // The probes are not API requests.
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${server.url}/healthz`)).status, 200);

    const after = await metrics();
    assert.equal(sample(after, balanceOk) - sample(before, balanceOk), 1);
    assert.equal(sample(after, balanceNoKey) - sample(before, balanceNoKey), 2);
    assert.equal(sample(after, sendOk) - sample(before, sendOk), 3);
    assert.equal(sample(after, other) - sample(before, other), 3, 'unknown paths are one series, never their URL');
    assert.equal(sample(after, balanceTimed) - sample(before, balanceTimed), 3);
    assert.ok(sample(after, 'haberci_api_request_duration_seconds_sum{endpoint="/sms/send"}') > 0);
    assert.equal(/endpoint="\/nope/.test(after), false, 'no raw URL as a label');
    assert.equal(/healthz/.test(after), false, 'the probes are not counted');
    // Node's default metrics.
    assert.match(after, /^process_cpu_user_seconds_total \d/m);
    assert.match(after, /^nodejs_eventloop_lag_seconds \d/m);
  });

  it('answers the probes as the serve port does', async () => {
    const health = await fetch(`${ops}/healthz`);
    assert.deepEqual([health.status, await health.json()], [200, { status: 'ok' }]);
    const ready = await fetch(`${ops}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');
    assert.equal(
      (await fetch(`${ops}/sms/send`, { method: 'POST' })).status,
      404,
      'the API is not on the operations listener',
    );
  });
});

describe('without --ops-port', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-ops-off-'));
  let server: ServerProcess;
  before(async () => {
    server = await startServer(['--data', dir, '--demo', 'false']);
  });
  after(async () => {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start when the operations port is taken, saying so', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const other = mkdtempSync(join(tmpdir(), 'haberci-ops-taken-'));
    try {
      await assert.rejects(
        startServer(['--data', other, '--demo', 'false', '--ops-port', String(port)]),
        /cannot open the operations listener on 127\.0\.0\.1:\d+: the port is already in use/,
      );
    } finally {
      taken.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('opens no operations listener, and the serve port has no /metrics', async () => {
    assert.equal(/operations listener/.test(server.output()), false);
    const answer = await fetch(`${server.url}/metrics`);
    assert.equal(answer.status, 404);
  });
});
