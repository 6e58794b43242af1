/**
 * The API's access log (src/http/api-plugin.ts) and request ids (src/http/request-id.ts): one
 * line at info per API request with its id, endpoint, status, result_code, time and key id
 * (and an accepted send's ids), never the key or the body; X-Request-Id echoed when well
 * formed, made otherwise; a sample of 0 logs nothing; the probes log nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/main.js';
import { healthSurface } from '../../src/http/health.js';
import { Readiness } from '../../src/services/readiness.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

/** A harness whose logger writes its JSON lines into `lines`. */
async function logged(accessLogSample?: number): Promise<{ h: Harness; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString().split('\n'))
        if (text !== '') lines.push(JSON.parse(text) as Record<string, unknown>);
      callback();
    },
  });
  const logger = createLogger('info', sink);
  const h = await createHarness(undefined, {
    logger,
    ...(accessLogSample === undefined ? {} : { accessLogSample }),
    surfaces: [healthSurface(new Readiness({ store: { health: async () => ({ migrated: true }) } }))],
  });
  return { h, lines };
}

const accessLines = (lines: Record<string, unknown>[]): Record<string, unknown>[] =>
  lines.filter((l) => l.msg === 'api request');
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the access log', () => {
  it('has one line per API request with its fields, never the key or the body', async () => {
    const { h, lines } = await logged();
    try {
      const { apiKey, keyId } = await h.provision();
      const sent = await h.post('/sms/send', {
        api_key: apiKey,
        sentto: '905321234567,905321234568',
        title: 'ACME',
        text: 'secret words',
      });
      assert.equal(sent.body.result_code, 'TS-1024');
      const refused = await h.post('/balance/', { api_key: 'x'.repeat(40) });
      const nowhere = await h.post('/no/such/path', { api_key: apiKey });
      assert.equal(nowhere.status, 404);
      const access = accessLines(lines);
      assert.equal(access.length, 3, JSON.stringify(lines));
      const [send, balance, other] = access;
      assert.equal(send?.level, 30, 'info');
      assert.equal(send?.endpoint, '/sms/send');
      assert.equal(send?.status, 200);
      assert.equal(send?.result_code, 'TS-1024');
      assert.equal(send?.keyId, keyId);
      assert.equal(typeof send?.ms, 'number');
      assert.equal(send?.requestId, sent.headers['x-request-id']);
      assert.equal(typeof send?.sendId, 'number');
      const messageIds = send?.messageIds as number[];
      assert.equal(messageIds.length, 2);
      assert.equal(messageIds[1], sent.body.sms_id, 'the message id the client got is on the line');
      assert.deepEqual(
        [balance?.endpoint, balance?.status, balance?.result_code, balance?.keyId],
        ['/balance/', refused.status, refused.body.result_code, null],
      );
      assert.equal(balance?.sendId, undefined);
      assert.deepEqual([other?.endpoint, other?.status, other?.result_code], ['other', 404, 'TS-404']);
      const text = JSON.stringify(lines);
      assert.equal(text.includes(apiKey), false, 'the key is not logged');
      assert.equal(text.includes('x'.repeat(40)), false, 'an unknown key is not logged');
      assert.equal(text.includes('secret words'), false, 'the body is not logged');
    } finally {
      await h.close();
    }
  });

  it('echoes a well-formed X-Request-Id and makes one otherwise', async () => {
    const { h, lines } = await logged();
    try {
      const given = 'lb-7f3a.2026:11:25_x';
      const echoed = await h.post('/balance/', {}, { headers: { 'x-request-id': given } });
      assert.equal(echoed.headers['x-request-id'], given);
      for (const bad of ['a'.repeat(65), 'has space', 'semi;colon', '']) {
        const made = await h.post('/balance/', {}, { headers: { 'x-request-id': bad } });
        assert.match(String(made.headers['x-request-id']), uuid, JSON.stringify(bad));
      }
      const none = await h.post('/balance/', {});
      assert.match(String(none.headers['x-request-id']), uuid);
      const probe = await h.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': given } });
      assert.equal(probe.headers['x-request-id'], given, 'every surface answers with the id');
      const ids = accessLines(lines).map((l) => l.requestId);
      assert.equal(ids[0], given);
      assert.equal(ids.length, 6, 'the probe has no access line');
      assert.equal(new Set(ids).size, 6);
    } finally {
      await h.close();
    }
  });

  it('names the endpoint by its table path: a query string dropped, a wrong method on it kept, a slash variant other', async () => {
    const { h, lines } = await logged();
    try {
      assert.equal((await h.post('/balance/?token=abc', {})).body.result_code, 'TS-1050');
      assert.equal((await h.post('/sms/send', undefined, { method: 'GET' })).status, 405);
      assert.equal((await h.post('/balance', {})).status, 301);
      const access = accessLines(lines);
      assert.deepEqual(
        access.map((l) => [l.endpoint, l.status]),
        [
          ['/balance/', 400],
          ['/sms/send', 405],
          ['other', 301],
        ],
      );
      assert.equal(JSON.stringify(lines).includes('token=abc'), false, 'the query string is not logged');
    } finally {
      await h.close();
    }
  });

  it('logs nothing with a sample of 0', async () => {
    const { h, lines } = await logged(0);
    try {
      const { apiKey } = await h.provision();
      for (let i = 0; i < 20; i++) assert.equal((await h.post('/balance/', { api_key: apiKey })).status, 200);
      assert.equal((await h.post('/nope', {})).status, 404);
      assert.deepEqual(accessLines(lines), []);
    } finally {
      await h.close();
    }
  });
});
