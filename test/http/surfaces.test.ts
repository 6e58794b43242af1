/**
 * Surfaces beside the API (src/http/app.ts): a plugin mounted under a prefix answers its
 * own unknown paths, errors and drain in its own format, while every path it does not
 * claim keeps the API's answers exactly.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyError, FastifyInstance } from 'fastify';
import { Agent, request } from 'undici';
import { buildApp, stopApp } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import type { Surface } from '../../src/http/app.js';
import { ServerStopping } from '../../src/http/drain-on-stop.js';
import { openAppContainer } from '../../src/main.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

/** A tiny surface in HTML and plain text, as a panel might answer. */
const console_: Surface = {
  prefix: '/console',
  plugin: async (surface: FastifyInstance) => {
    surface.setNotFoundHandler(async (_request, reply) =>
      reply.code(404).type('text/html; charset=utf-8').send('<h1>No such page</h1>'),
    );
    surface.setErrorHandler(async (error: FastifyError, _request, reply) => {
      if (error instanceof ServerStopping)
        return reply.code(503).type('text/html; charset=utf-8').send('<h1>Back soon</h1>');
      return reply
        .code(error.statusCode ?? 500)
        .type('text/plain; charset=utf-8')
        .send(`console error: ${error.statusCode === undefined ? 'bug' : error.message}`);
    });
    surface.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send('<h1>Console</h1>'));
    surface.get('/boom', async () => {
      throw new Error('a bug in a page');
    });
    surface.post('/echo', async (request) => ({ echoed: request.body }));
  },
};

describe('a surface under a prefix', () => {
  let h: Harness;
  let apiKey: string;
  before(async () => {
    h = await createHarness(undefined, { surfaces: [console_] });
    apiKey = (await h.provision()).apiKey;
  });
  after(async () => h.close());

  it('serves its own routes, with and without a trailing slash on its root', async () => {
    for (const url of ['/console', '/console/']) {
      const page = await h.app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.equal(page.body, '<h1>Console</h1>');
    }
  });

  it('answers an unknown path under its prefix with its own HTML 404, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const page = await h.app.inject({ method, url: '/console/nope' });
      assert.equal(page.statusCode, 404, method);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.equal(page.body, '<h1>No such page</h1>');
    }
    // A method its route does not take is an unknown path to Fastify: the surface's 404 too.
    assert.equal((await h.app.inject({ method: 'POST', url: '/console/boom' })).body, '<h1>No such page</h1>');
  });

  it('answers its errors with its own error handler, not in the API envelope', async () => {
    const bug = await h.app.inject({ method: 'GET', url: '/console/boom' });
    assert.equal(bug.statusCode, 500);
    assert.equal(bug.body, 'console error: bug');
    const badJson = await h.app.inject({
      method: 'POST',
      url: '/console/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    assert.equal(badJson.statusCode, 400);
    assert.match(badJson.body, /^console error: /);
  });

  it("does not get the API's body parsers: a form body is its to parse", async () => {
    const form = await h.app.inject({
      method: 'POST',
      url: '/console/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1',
    });
    assert.equal(form.statusCode, 415);
    assert.match(form.body, /^console error: /);
    const json = await h.app.inject({
      method: 'POST',
      url: '/console/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    assert.deepEqual(JSON.parse(json.body), { echoed: { a: 1 } });
  });

  it('leaves every other unknown path, wrong method and bad body to the API, in its envelopes', async () => {
    const unknown = await h.post('/nope', { api_key: apiKey });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { result: false, result_code: 'TS-404', result_message: 'Not found' });
    const blacklist = await h.post('/blacklist/nope', {});
    assert.equal(blacklist.status, 404);
    assert.equal(blacklist.body.status, 'error');
    // A path that only begins like the prefix is not the surface's.
    const near = await h.app.inject({ method: 'GET', url: '/consoles' });
    assert.equal(near.statusCode, 404);
    assert.equal(JSON.parse(near.body).result_code, 'TS-404');
    const moved = await h.post('/balance', { api_key: apiKey });
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.location, '/balance/');
    const method = await h.post('/balance/', undefined, { method: 'GET' });
    assert.equal(method.status, 405);
    assert.equal(method.headers.allow, 'POST');
    assert.equal(method.body.result_code, 'TS-404');
    const badBody = await h.post('/balance/', undefined, { raw: '{"api_key":' });
    assert.equal(badBody.status, 400);
    assert.equal(badBody.body.result_code, 'TS-1033');
    const large = await h.post('/balance/', undefined, {
      raw: JSON.stringify({ api_key: apiKey, filler: 'x'.repeat(70 * 1024) }),
    });
    assert.equal(large.status, 413);
    assert.equal(large.body.result_code, 'TS-1033');
    const fine = await h.post('/balance/', { api_key: apiKey });
    assert.equal(fine.status, 200);
    assert.equal(fine.body.result_code, 'TS-1040');
    const contract = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(contract.statusCode, 200);
  });
});

describe('surface prefixes', () => {
  for (const [prefix, why] of [
    ['/sms', 'it holds /sms/send'],
    ['/balance', 'it holds /balance/'],
    ['/docs', 'it is the contract page'],
    ['/console/', 'it ends in a slash'],
    ['/', 'it is the root'],
  ] as const) {
    it(`refuses ${prefix}: ${why}`, async () => {
      const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
      try {
        await assert.rejects(
          buildApp({
            connections: defaultConnectionLimits,
            services: container.services,
            surfaces: [{ prefix: prefix as `/${string}`, plugin: console_.plugin }],
          }),
          /surface prefix/,
        );
      } finally {
        await container.close();
      }
    });
  }
});

describe('a surface while the server stops', () => {
  it('answers a request arriving during the drain in its own format, and the API in its envelope', async () => {
    const container = await openAppContainer({ dialect: 'sqlite', file: ':memory:' });
    const app = await buildApp({
      connections: defaultConnectionLimits,
      services: container.services,
      requestsPerSecond: 0,
      surfaces: [console_],
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const agent = new Agent({ connections: 2, keepAliveTimeout: 60_000 });
    try {
      // Two keep-alive connections, open before the stop begins.
      const [page, api] = await Promise.all([
        request(`${base}/console/`, { dispatcher: agent }),
        request(`${base}/nope`, { method: 'POST', dispatcher: agent }),
      ]);
      await Promise.all([page.body.text(), api.body.text()]);
      const stopped = stopApp(app, 5000);
      const [pageLate, apiLate] = await Promise.all([
        request(`${base}/console/`, { dispatcher: agent }),
        request(`${base}/balance/`, { method: 'POST', dispatcher: agent }),
      ]);
      assert.equal(pageLate.statusCode, 503);
      assert.equal(pageLate.headers.connection, 'close');
      assert.equal(await pageLate.body.text(), '<h1>Back soon</h1>');
      assert.equal(apiLate.statusCode, 503);
      assert.equal(apiLate.headers.connection, 'close');
      const body = (await apiLate.body.json()) as Record<string, unknown>;
      assert.equal(body.result, false);
      assert.equal(body.result_code, 'SRV-ERR');
      await stopped;
    } finally {
      await agent.close();
      await container.close();
    }
  });
});
