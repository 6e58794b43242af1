/**
 * The contract on a real `./bin/haberci serve` process (docs/interfaces: GET /openapi.json
 * and GET /docs on the serve port): the committed document with its captured examples,
 * the reference page, and the typed client answering against it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HaberciClient } from '../../src/client/index.js';
import { provisionSender, startServer } from '../helpers/server-process.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { checkAgainstContract } from '../helpers/contract-check.js';

describe('the contract on ./bin/haberci serve', () => {
  let data = '';
  let server: ServerProcess;
  before(async () => {
    data = mkdtempSync(join(tmpdir(), 'haberci-contract-'));
    server = await startServer(['--data', data, '--demo', 'false']);
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(data, { recursive: true, force: true });
  });

  it('serves docs/openapi.json, examples included, and the reference page', async () => {
    const doc = await fetch(`${server.url}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.deepEqual(await doc.json(), JSON.parse(readFileSync('docs/openapi.json', 'utf8')));
    const page = await fetch(`${server.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1>haberci: Messaging Service API v4<\/h1>/);
  });

  it('refuses to be framed on /docs: CSP frame-ancestors none and X-Frame-Options DENY', async () => {
    const page = await fetch(`${server.url}/docs`);
    await page.arrayBuffer();
    const csp = (page.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
    assert.ok(csp.includes("frame-ancestors 'none'"), csp.join('; '));
    assert.ok(csp.includes("default-src 'none'"), 'the page still fetches nothing');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  });

  it('answers the typed client as the document says', async () => {
    const { apiKey } = await provisionSender(['--data', data], 'Contract', 7);
    const client = new HaberciClient({ baseUrl: server.url, apiKey });
    const answer = await client.balance();
    checkAgainstContract('POST', '/balance/', answer.status, JSON.stringify(answer.body));
    assert.equal(answer.body.result_code === 'TS-1040' ? answer.body.balance_main : null, 7);
    assert.equal(answer.rateLimit?.limit, 100);
  });
});
