/**
 * The OpenAPI document: the committed files are what the code generates, the server serves
 * the same document, it passes Redocly's recommended ruleset, and it holds every endpoint,
 * its body encodings, every status of each endpoint's table and the webhook events.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { endpoints } from '../../src/endpoints/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { contractFiles } from '../helpers/contract-files.js';
import { checkAgainstContract } from '../helpers/contract-check.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

type Json = Record<string, unknown>;
const committed = readFileSync('docs/openapi.json', 'utf8');
const document = JSON.parse(committed) as {
  paths: Record<string, { post: Json & { responses: Record<string, Json>; requestBody: { content: Json } } }>;
  webhooks: Record<string, { post: { parameters: { name: string }[] } }>;
};

describe('the OpenAPI document', () => {
  it('is what scripts/write-contract.mjs writes: docs/openapi.json and the client types are up to date (npm run contract)', async () => {
    const files = await contractFiles();
    for (const [path, text] of Object.entries(files))
      assert.equal(readFileSync(path, 'utf8'), text, `${path} is out of date: run npm run contract`);
  });

  it("passes Redocly's recommended rules (but the trailing slash the spec gives two paths)", async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-path-trailing-slash': 'off' } });
    const problems = await lintFromString({ source: committed, absoluteRef: 'docs/openapi.json', config });
    assert.deepEqual(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`),
      [],
    );
  });

  it('has every endpoint of the table with its three body encodings and its api_key rule', () => {
    assert.deepEqual(Object.keys(document.paths).sort(), endpoints.map((e) => e.path).sort());
    for (const e of endpoints) {
      const content = document.paths[e.path]?.post.requestBody.content ?? {};
      assert.deepEqual(
        Object.keys(content),
        ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
        e.path,
      );
      const key = ((content['application/json'] as Json).schema as { properties: Record<string, Json> }).properties
        .api_key;
      assert.deepEqual([key?.minLength, key?.maxLength], [e.key.min, e.key.max], e.path);
    }
  });

  it("declares every code of each endpoint's status table under its HTTP status", () => {
    for (const e of endpoints) {
      const responses = document.paths[e.path]?.post.responses ?? {};
      for (const [key, status] of Object.entries(e.statuses)) {
        const schema = ((responses[String(status)]?.content as Json)['application/json'] as Json).schema as Json;
        const shapes = (schema.oneOf as Json[] | undefined) ?? [schema];
        const codes = shapes.flatMap(
          (s) => ((s.properties as Record<string, Json>).result_code?.enum as string[]) ?? [],
        );
        assert.ok(codes.includes(key.split(':')[0] ?? ''), `${e.path}: ${key} under HTTP ${status}`);
      }
      assert.ok(
        responses['429']?.headers && 'Retry-After' in (responses['429'].headers as Json),
        `${e.path}: Retry-After on 429`,
      );
      assert.ok('X-RateLimit-Remaining' in (responses['200']?.headers as Json), `${e.path}: rate-limit headers`);
    }
  });

  it('has, for every endpoint, a captured success and refusal whose request and answer match their schemas', () => {
    const examples = JSON.parse(readFileSync('docs/openapi-examples.json', 'utf8')) as Record<
      string,
      { request: Json; status: number; response: Json }[]
    >;
    const ajv = new Ajv2020({ strict: false });
    for (const e of endpoints) {
      const captured = examples[e.path] ?? [];
      assert.ok(captured.some((x) => x.status === 200) && captured.some((x) => x.status >= 400), e.path);
      const requestSchema = (document.paths[e.path]?.post.requestBody.content['application/json'] as Json)
        .schema as Json;
      for (const x of captured) {
        checkAgainstContract('POST', e.path, x.status, JSON.stringify(x.response));
        if (x.status === 200) assert.ok(ajv.validate(requestSchema, x.request), `${e.path}: ${ajv.errorsText()}`);
      }
    }
  });

  it('lists the webhook events with their signature and timestamp headers', () => {
    assert.deepEqual(Object.keys(document.webhooks).sort(), [
      'key.test',
      'sms.cancelled',
      'sms.clicked',
      'sms.delivered',
      'sms.failed',
      'sms.received',
      'sms.sent',
    ]);
    for (const hook of Object.values(document.webhooks)) {
      const names = hook.post.parameters.map((p) => p.name);
      assert.ok(names.includes('X-Service-Signature') && names.includes('X-Service-Timestamp'), names.join());
    }
  });
});

describe('GET /openapi.json and GET /docs', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(async () => h.close());

  it('serves the committed document', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(r.body), JSON.parse(committed));
  });

  it('serves a reference page rendered from it, with no script and nothing fetched from elsewhere', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    for (const e of endpoints) assert.ok(r.body.includes(`POST ${e.path}</code>`), e.path);
    assert.ok(r.body.includes('X-Service-Signature'));
    assert.ok(r.body.includes('TS-1060'));
    assert.doesNotMatch(r.body, /<script|<link|src="http/i);
  });
});
