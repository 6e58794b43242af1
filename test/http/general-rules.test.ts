/**
 * The spec's "General rules" through HTTP: POST only, JSON and form bodies, the query
 * string never read, paths exactly as written, the two envelopes, and a JSON answer with a
 * result_code for every request however malformed, never a crash or a trace.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp, defaultBodyLimit } from '../../src/http/app.js';
import { defaultConnectionLimits } from '../../src/config.js';
import { AuthService } from '../../src/services/auth.js';
import type { Caller } from '../../src/services/auth.js';
import type { Result } from '../../src/domain/result.js';
import { createHarness } from '../helpers/harness.js';
import type { Answer, Harness } from '../helpers/harness.js';

const paths = ['/auth/post/check/', '/balance/', '/senderid/check'] as const;
/** The invalid-body code and its HTTP status of each endpoint (spec, Errors: per endpoint). */
const invalidBody = {
  '/auth/post/check/': { code: 'TS-1031', status: 401 },
  '/balance/': { code: 'TS-1033', status: 400 },
  '/senderid/check': { code: 'TS-1033', status: 400 },
} as const;
/** The success code of each endpoint. */
const successCode = { '/auth/post/check/': 'TS-1000', '/balance/': 'TS-1040', '/senderid/check': 'TS-1040' } as const;

/** A JSON body with a result_code, and nothing of the server's insides. */
function assertCleanJson(answer: Answer, context: string): void {
  assert.match(String(answer.headers['content-type']), /^application\/json/, `${context}: content type`);
  assert.doesNotThrow(() => JSON.parse(answer.raw), `${context}: body is JSON: ${answer.raw}`);
  assert.equal(typeof answer.body.result_code, 'string', `${context}: result_code in ${answer.raw}`);
  assert.equal('stack' in answer.body, false, `${context}: no stack`);
  assert.doesNotMatch(
    answer.raw,
    /\bat \S+ \(|\bat \/|node_modules|\.js:\d+|\.ts:\d+/,
    `${context}: no trace in ${answer.raw}`,
  );
}

function assertResultFailure(answer: Answer, code: string, status: number, context: string): void {
  assertCleanJson(answer, context);
  assert.equal(answer.status, status, `${context}: HTTP status (${answer.raw})`);
  assert.equal(answer.body.result, false, `${context}: result`);
  assert.equal(answer.body.result_code, code, `${context}: code (${answer.raw})`);
  assert.equal(typeof answer.body.result_message, 'string', `${context}: result_message`);
  assert.equal('status' in answer.body, false, `${context}: the result envelope has no status field`);
}

function assertStatusFailure(answer: Answer, code: string, status: number, context: string): void {
  assertCleanJson(answer, context);
  assert.equal(answer.status, status, `${context}: HTTP status (${answer.raw})`);
  assert.equal(answer.body.status, 'error', `${context}: status`);
  assert.equal(answer.body.result_code, code, `${context}: code`);
  assert.equal(typeof answer.body.result_message, 'string', `${context}: result_message`);
  assert.equal('result' in answer.body, false, `${context}: the status envelope has no result field`);
}

describe('general rules', () => {
  let h: Harness;
  let apiKey: string;
  before(async () => {
    h = await createHarness();
    apiKey = (await h.provision()).apiKey;
  });
  after(async () => h.close());

  describe('POST only', () => {
    // 405 with Allow: POST on every endpoint's path: test/http/endpoint-table.
    it('a GET with the key in the query string does not authenticate', async () => {
      const answer = await h.post(`/balance/?api_key=${apiKey}`, undefined, { method: 'GET' });
      assert.equal(answer.status, 405);
      assert.equal(answer.body.result, false);
    });
  });

  describe('bodies', () => {
    for (const path of paths) {
      it(`${path} accepts a JSON body`, async () => {
        const answer = await h.post(path, { api_key: apiKey });
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.result, true);
        assert.equal(answer.body.result_code, successCode[path]);
      });

      it(`${path} accepts a form body`, async () => {
        const answer = await h.post(path, undefined, {
          raw: new URLSearchParams({ api_key: apiKey }).toString(),
          contentType: 'application/x-www-form-urlencoded',
        });
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.result_code, successCode[path]);
      });

      it(`${path} accepts JSON with a charset parameter`, async () => {
        const answer = await h.post(path, { api_key: apiKey }, { contentType: 'application/json; charset=utf-8' });
        assert.equal(answer.body.result_code, successCode[path], answer.raw);
      });

      it(`${path} ignores unknown request fields`, async () => {
        const answer = await h.post(path, { api_key: apiKey, unknown_field: 'x', nested: { a: [1, 2] }, sms_lang: 9 });
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.result_code, successCode[path]);
      });

      it(`${path} never reads the query string`, async () => {
        const missing =
          path === '/auth/post/check/' ? { code: 'TS-1031', status: 401 } : { code: 'TS-1050', status: 400 };
        const onlyQuery = await h.post(`${path}?api_key=${apiKey}`, {});
        assertResultFailure(onlyQuery, missing.code, missing.status, `${path} key only in the query`);
        const emptyBody = await h.post(`${path}?api_key=${apiKey}`, undefined);
        assertResultFailure(emptyBody, missing.code, missing.status, `${path} key only in the query, no body`);
        // A key in the body is used whatever the query says.
        const both = await h.post(`${path}?api_key=${'q'.repeat(40)}`, { api_key: apiKey });
        assert.equal(both.body.result_code, successCode[path]);
      });

      it(`${path} never reads a key from a header`, async () => {
        const answer = await h.post(
          path,
          {},
          { headers: { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey, api_key: apiKey } },
        );
        assert.equal(answer.body.result, false);
        assert.notEqual(answer.body.result_code, successCode[path]);
      });
    }
  });

  describe('paths exactly as written', () => {
    for (const [from, to] of [
      ['/balance', '/balance/'],
      ['/auth/post/check', '/auth/post/check/'],
      ['/senderid/check/', '/senderid/check'],
    ] as const) {
      it(`${from} redirects with 301 to ${to}`, async () => {
        const answer = await h.post(from, { api_key: apiKey });
        assertCleanJson(answer, from);
        assert.equal(answer.status, 301);
        assert.equal(answer.headers.location, to);
        assert.equal(answer.body.result, false);
      });
    }

    it('a redirect does not carry out the request', async () => {
      const answer = await h.post('/balance', { api_key: apiKey });
      assert.equal(answer.status, 301);
      assert.equal('balance_main' in answer.body, false);
    });

    for (const path of [
      '/nothing',
      '/',
      '/balance/extra',
      '/Balance/',
      '/BALANCE/',
      '/Auth/Post/Check/',
      '/senderid/Check',
      '/sms/send/x',
    ]) {
      it(`${path} answers 404 in a JSON envelope`, async () => {
        assertResultFailure(await h.post(path, { api_key: apiKey }), 'TS-404', 404, path);
      });
    }

    it('/auth/check (an old path) answers 404', async () => {
      assertResultFailure(await h.post('/auth/check', { api_key: apiKey }), 'TS-404', 404, '/auth/check');
    });

    for (const path of ['/blacklist/add', '/blacklist/status', '/blacklist/anything']) {
      it(`${path} answers 404 in the status envelope with TS-404`, async () => {
        assertStatusFailure(await h.post(path, { api_key: apiKey }), 'TS-404', 404, path);
      });
    }

    for (const path of ['/reports/anything', '/reports/basic/x']) {
      it(`${path} answers 404 in the status envelope with TS-1033`, async () => {
        assertStatusFailure(await h.post(path, { api_key: apiKey }), 'TS-1033', 404, path);
      });
    }

    it('a 404 answers any method with JSON', async () => {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const answer = await h.post('/nowhere', undefined, { method });
        assertResultFailure(answer, 'TS-404', 404, `${method} /nowhere`);
      }
    });
  });

  describe('envelopes', () => {
    it('a success is the result envelope: result true, result_code, result_message, no status field', async () => {
      const answer = await h.post('/balance/', { api_key: apiKey });
      assert.equal(answer.body.result, true);
      assert.equal(answer.body.result_code, 'TS-1040');
      assert.equal(typeof answer.body.result_message, 'string');
      assert.equal('status' in answer.body, false);
    });
  });

  describe('malformed bodies get the endpoint invalid-body code', () => {
    // Not JSON, a JSON array and a JSON string: on every endpoint, in test/http/endpoint-table.
    const cases: { name: string; raw: string; contentType?: string }[] = [
      { name: 'plain text sent as JSON', raw: 'api_key=abc' },
      { name: 'a JSON number', raw: '42' },
      { name: 'JSON true', raw: 'true' },
      { name: 'JSON null', raw: 'null' },
      { name: 'a __proto__ key', raw: '{"api_key":"x","__proto__":{"polluted":1}}' },
      { name: 'a constructor.prototype key', raw: '{"api_key":"x","constructor":{"prototype":{"polluted":1}}}' },
      { name: 'an unsupported Content-Type (text/plain)', raw: '{"api_key":"x"}', contentType: 'text/plain' },
      {
        name: 'an unsupported Content-Type (application/xml)',
        raw: '<api_key>x</api_key>',
        contentType: 'application/xml',
      },
      { name: 'a broken form body declared as JSON', raw: 'api_key=%zz', contentType: 'application/json' },
    ];
    for (const path of paths) {
      for (const c of cases) {
        it(`${path}: ${c.name}`, async () => {
          const answer = await h.post(path, undefined, {
            raw: c.raw,
            ...(c.contentType ? { contentType: c.contentType } : {}),
          });
          const expected = invalidBody[path];
          assertResultFailure(answer, expected.code, expected.status, `${path} ${c.name}`);
          assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is not polluted');
        });
      }

      it(`${path}: a body without a Content-Type`, async () => {
        const response = await h.app.inject({
          method: 'POST',
          url: path,
          payload: `{"api_key":"${apiKey}"}`,
          remoteAddress: '127.0.0.1',
        });
        assert.equal(response.headers['content-type']?.toString().startsWith('application/json'), true);
        const body = JSON.parse(response.body) as Record<string, unknown>;
        assert.equal(body.result_code, invalidBody[path].code, response.body);
        assert.equal(body.result, false);
        assert.equal(response.statusCode, invalidBody[path].status);
      });

      it(`${path}: a body over the 1 MiB limit answers 413`, async () => {
        const raw = JSON.stringify({ api_key: apiKey, filler: 'x'.repeat(1024 * 1024) });
        const answer = await h.post(path, undefined, { raw });
        assertResultFailure(answer, invalidBody[path].code, 413, `${path} oversized`);
      });

      it(`${path}: a body just under the limit is read`, async () => {
        const raw = JSON.stringify({ api_key: apiKey, filler: 'x'.repeat(defaultBodyLimit - 200) });
        const answer = await h.post(path, undefined, { raw });
        assert.equal(answer.body.result_code, successCode[path], answer.raw.slice(0, 200));
      });

      it(`${path}: form bodies with __proto__ keys neither pollute nor crash`, async () => {
        const raw = `api_key=${encodeURIComponent(apiKey)}&__proto__[polluted]=1&__proto__=2&constructor[prototype][polluted]=3`;
        const answer = await h.post(path, undefined, { raw, contentType: 'application/x-www-form-urlencoded' });
        assertCleanJson(answer, `${path} form __proto__`);
        assert.equal(answer.body.result_code, successCode[path], answer.raw);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        const keyOnlyInProto = await h.post(path, undefined, {
          raw: `__proto__[api_key]=${encodeURIComponent(apiKey)}`,
          contentType: 'application/x-www-form-urlencoded',
        });
        assertCleanJson(keyOnlyInProto, `${path} form __proto__ key`);
        assert.equal(keyOnlyInProto.body.result, false);
      });

      it(`${path}: a form body naming api_key twice is not a valid key`, async () => {
        const raw = `api_key=${encodeURIComponent(apiKey)}&api_key=${encodeURIComponent(apiKey)}`;
        const answer = await h.post(path, undefined, { raw, contentType: 'application/x-www-form-urlencoded' });
        assertCleanJson(answer, `${path} api_key twice`);
        assert.equal(answer.body.result, false);
      });

      it(`${path}: a request with no body at all is a missing key`, async () => {
        const response = await h.app.inject({ method: 'POST', url: path, remoteAddress: '127.0.0.1' });
        const body = JSON.parse(response.body) as Record<string, unknown>;
        assert.equal(body.result, false);
        assert.equal(body.result_code, path === '/auth/post/check/' ? 'TS-1031' : 'TS-1050');
        assert.equal(response.statusCode, path === '/auth/post/check/' ? 401 : 400);
      });

      it(`${path}: an empty body declared as JSON is not JSON`, async () => {
        const answer = await h.post(path, undefined, { raw: '' });
        assertResultFailure(answer, invalidBody[path].code, invalidBody[path].status, `${path} empty JSON body`);
      });

      it(`${path}: an empty form body is a missing key`, async () => {
        const answer = await h.post(path, undefined, { raw: '', contentType: 'application/x-www-form-urlencoded' });
        assertResultFailure(
          answer,
          path === '/auth/post/check/' ? 'TS-1031' : 'TS-1050',
          path === '/auth/post/check/' ? 401 : 400,
          `${path} empty form`,
        );
      });
    }
  });
});

describe('general rules: an unexpected error', () => {
  /** An auth service whose every call is a bug, to stand for any unexpected exception. */
  class BrokenAuth extends AuthService {
    override async authenticate(): Promise<Result<Caller>> {
      throw new Error('boom secret detail /srv/haberci/src/services/auth.ts:42');
    }
  }

  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  for (const [path, code] of [
    ['/auth/post/check/', 'TS-5000'],
    ['/balance/', 'SRV-ERR'],
    ['/senderid/check', 'SRV-ERR'],
  ] as const) {
    it(`${path} answers HTTP 500 with ${code} and no internals`, async () => {
      const services = { ...h.runtime.services, auth: new BrokenAuth(h.runtime.store.keys, h.clock) };
      const app = await buildApp({ connections: defaultConnectionLimits, services, requestsPerSecond: 0 });
      try {
        const response = await app.inject({
          method: 'POST',
          url: path,
          payload: { api_key: 'k'.repeat(40) },
          remoteAddress: '127.0.0.1',
        });
        assert.equal(response.statusCode, 500);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        const body = JSON.parse(response.body) as Record<string, unknown>;
        assert.equal(body.result, false);
        assert.equal(body.result_code, code);
        assert.equal(typeof body.result_message, 'string');
        assert.doesNotMatch(response.body, /boom|secret|auth\.ts|stack/i);
      } finally {
        await app.close();
      }
    });
  }
});
