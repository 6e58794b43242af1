/**
 * The OpenAPI 3.1 document built from the endpoints' own schemas and result codes.
 * One file, long because it is one document's assembly (paths, envelopes, refusals,
 * examples), whose parts refer to each other; the field rules and the webhooks are
 * already apart (openapi-fields.ts, openapi-webhooks.ts).
 */
import { z } from 'zod';
import type { Endpoint } from '../endpoints/endpoint.js';
import { permissionOffCode } from '../domain/permissions.js';
import { messageOf } from '../domain/result-codes.js';
import type { ResultCode } from '../domain/result-codes.js';
import { statusOf } from './envelope.js';
import { fieldRule } from './openapi-fields.js';
import { webhookSection } from './openapi-webhooks.js';

/** A JSON Schema or OpenAPI object: plain JSON, built here and read by tests and the client generator. */
export type JsonObject = Record<string, unknown>;

/**
 * OpenAPI 3.1 from the endpoint table: every path, its request fields (from its zod
 * `request`, input side), its answers by HTTP status (its `reply` for success, its `statuses`
 * for failures), the rate-limit headers and the webhook events. Built at start (and by
 * scripts/write-contract.mjs into docs/openapi.json), never written by hand.
 */
export function openApiDocument(
  table: readonly Endpoint[],
  version: string,
  examples: CapturedExamples = {},
): JsonObject {
  const paths: JsonObject = {};
  for (const endpoint of table)
    paths[endpoint.path] = { post: withExamples(operation(endpoint), examples[endpoint.path] ?? []) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'haberci: Messaging Service API v4',
      version,
      summary: 'Single, scheduled and bulk SMS, OTP, groups, blocking list, reports; signed webhooks.',
      description: [
        'Every endpoint takes POST only, with the key in the body field `api_key` (there is no Authorization header).',
        'Bodies are JSON or form fields. Evaluate the body (`result` or `status`, and `result_code`), not the HTTP status: some failures answer 200.',
        'Parse forward-compatibly: ignore fields you do not know. A wrong path answers 301 (to the path with or without its final slash) or 404; another method, 405.',
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'haberci serve with its default port and host' }],
    // The key travels in the body (spec, Authentication): no security scheme applies.
    security: [],
    tags: [
      { name: 'messaging', description: 'Messaging Service API v4' },
      { name: 'webhooks', description: 'Events the service POSTs to your webhook URL' },
    ],
    paths,
    webhooks: webhookSection(),
    components: { headers: rateHeaders },
  };
}

/** Requests and the answers a server gave them, by path (docs/openapi-examples.json). */
export type CapturedExamples = Record<string, { request: JsonObject; status: number; response: JsonObject }[]>;

/**
 * The examples of an operation are real exchanges captured from a server
 * (scripts/write-contract.mjs), never written by hand; a test checks each against its schema.
 */
function withExamples(op: JsonObject, captured: CapturedExamples[string]): JsonObject {
  const requestExamples: JsonObject = {};
  const byStatus = new Map<number, JsonObject>();
  captured.forEach((example, i) => {
    const name = example.status < 300 ? `answered-${i + 1}` : `refused-${i + 1}`;
    // A refused request is not a valid one: it is told in its answer's description instead.
    if (example.status < 300)
      requestExamples[name] = {
        summary: `Answered with HTTP ${example.status}, ${String(example.response.result_code)}`,
        value: example.request,
      };
    const named = byStatus.get(example.status) ?? {};
    named[name] = {
      summary: String(example.response.result_code),
      description: `The answer to ${JSON.stringify(example.request)}`,
      value: example.response,
    };
    byStatus.set(example.status, named);
  });
  if (captured.length === 0) return op;
  const content = (op.requestBody as { content: Record<string, JsonObject> }).content;
  const json = content['application/json'];
  if (json) json.examples = requestExamples;
  const responses = op.responses as Record<string, { content: Record<string, JsonObject> }>;
  for (const [status, named] of byStatus) {
    const media = responses[String(status)]?.content['application/json'];
    if (media) media.examples = named;
  }
  return op;
}

/** The operation's name in the client and in the document: `/auth/post/check/` is `authPostCheck`. */
export function operationId(path: string): string {
  const words = path.split('/').filter((w) => w !== '');
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

const rateHeaders: JsonObject = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per second for this key (the general request rate).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current second.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window starts again.', schema: { type: 'integer' } },
  'Retry-After': {
    description: 'On TS-1060 with HTTP 429, and on a 503: seconds to wait before trying again.',
    schema: { type: 'integer' },
  },
};

function operation(endpoint: Endpoint): JsonObject {
  const permissions =
    endpoint.permissions.length === 0 ? 'none' : endpoint.permissions.map((p) => `\`${p}\``).join(', ');
  return {
    operationId: operationId(endpoint.path),
    summary: endpoint.summary,
    description: `Permissions: ${permissions}. Envelope: \`${endpoint.envelope}\`. Success: ${endpoint.reply.codes.join(' or ')}.`,
    tags: ['messaging'],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: requestSchema(endpoint, false) },
        'application/x-www-form-urlencoded': { schema: requestSchema(endpoint, true) },
        // Read into the same fields as a urlencoded form (src/http/multipart-body.ts).
        'multipart/form-data': { schema: requestSchema(endpoint, true) },
      },
    },
    responses: responses(endpoint),
  };
}

const safeBound = Number.MAX_SAFE_INTEGER;

/** zod's safe-integer bounds say nothing to a reader; `$schema` belongs to the document, not to each schema. */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' && v === -safeBound) || (k === 'maximum' && v === safeBound)) continue;
    out[k] = tidy(v);
  }
  return out;
}

export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  return tidy(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' })) as JsonObject;
}

/** Form fields arrive as text: an integer field also takes its digits. */
const digitsPattern = '^\\s*-?[0-9]+\\s*$';

function requestSchema(endpoint: Endpoint, form: boolean): JsonObject {
  const derived = jsonSchemaOf(endpoint.request, 'input');
  const fields = (derived.properties ?? {}) as Record<string, JsonObject>;
  const properties: JsonObject = {
    api_key: {
      type: 'string',
      minLength: endpoint.key.min,
      maxLength: endpoint.key.max,
      description: `The API key (${endpoint.key.min} to ${endpoint.key.max} characters). Missing: ${endpoint.key.missing}; wrong length: ${endpoint.key.malformed}.`,
    },
  };
  const required = ['api_key'];
  for (const [name, schema] of Object.entries(fields)) {
    const { required: forced, ...rule } = fieldRule(endpoint.path, name) ?? { description: '' };
    const merged: JsonObject = { ...schema, ...rule };
    if (merged.description === '') delete merged.description;
    if (form && merged.type === 'integer') {
      Object.assign(merged, { type: ['integer', 'string'], pattern: digitsPattern });
      if (Array.isArray(merged.enum)) merged.enum = [...merged.enum, ...merged.enum.map(String)];
    }
    properties[name] = merged;
    // A field with a default is optional, whatever the preprocessing that fills it in says.
    const zodRequired = ((derived.required as string[] | undefined) ?? []).includes(name);
    if (forced === true || (zodRequired && !('default' in merged))) required.push(name);
  }
  return { type: 'object', properties, required };
}

/** Every failure code the endpoint answers with, and under which HTTP status. */
export function failureStatuses(endpoint: Endpoint): Map<number, Set<ResultCode>> {
  const byStatus = new Map<number, Set<ResultCode>>();
  const add = (status: number, code: ResultCode): void => {
    const codes = byStatus.get(status) ?? new Set<ResultCode>();
    codes.add(code);
    byStatus.set(status, codes);
  };
  for (const [key, status] of Object.entries(endpoint.statuses)) {
    if (status !== undefined) add(status, key.split(':')[0] as ResultCode);
  }
  const { key } = endpoint;
  add(statusOf(endpoint, key.missing, 'key-missing', false), key.missing);
  add(statusOf(endpoint, key.malformed, 'key-malformed', false), key.malformed);
  add(statusOf(endpoint, endpoint.invalidBody, 'body', false), endpoint.invalidBody);
  add(413, endpoint.invalidBody);
  for (const p of endpoint.permissions)
    add(statusOf(endpoint, permissionOffCode[p], 'permission', false), permissionOffCode[p]);
  // The store away, silent or full, or the bodies in flight over their budget: nothing was
  // done, and the request may be sent again after Retry-After.
  add(500, endpoint.serverError);
  add(503, endpoint.serverError);
  return byStatus;
}

function envelopeHead(
  endpoint: Endpoint,
  success: boolean,
  codes: readonly ResultCode[],
  withMessage: boolean,
): { properties: JsonObject; required: string[] } {
  const code = { type: 'string', enum: [...codes], description: codes.map((c) => `${c}: ${messageOf(c)}`).join('; ') };
  const message = { type: 'string', description: 'English text that may change: programs read result_code.' };
  const properties: JsonObject =
    endpoint.envelope === 'result'
      ? { result: { const: success }, result_code: code }
      : { status: { const: success ? 'success' : 'error' }, result_code: code };
  if (withMessage) properties.result_message = message;
  return { properties, required: Object.keys(properties) };
}

export function successSchema(endpoint: Endpoint): JsonObject {
  const fields = jsonSchemaOf(endpoint.reply.fields, 'output');
  const head = envelopeHead(endpoint, true, endpoint.reply.codes, endpoint.omitMessageOnSuccess !== true);
  return {
    type: 'object',
    properties: { ...head.properties, ...((fields.properties ?? {}) as JsonObject) },
    required: [...head.required, ...((fields.required as string[] | undefined) ?? [])],
    additionalProperties: false,
  };
}

export function failureSchema(endpoint: Endpoint, codes: readonly ResultCode[]): JsonObject {
  const head = envelopeHead(endpoint, false, [...codes].sort(), true);
  return { type: 'object', properties: head.properties, required: head.required, additionalProperties: false };
}

/** Response bodies by HTTP status: success, failures, or either (told apart by `result_code`). */
export function responseSchemas(endpoint: Endpoint): Map<number, JsonObject> {
  const out = new Map<number, JsonObject>();
  const successStatus = statusOf(endpoint, endpoint.reply.codes[0], undefined, true);
  const failures = failureStatuses(endpoint);
  const statuses = [...new Set([successStatus, ...failures.keys()])].sort((a, b) => a - b);
  for (const status of statuses) {
    const codes = failures.get(status);
    const shapes: JsonObject[] = [];
    if (status === successStatus) shapes.push(successSchema(endpoint));
    if (codes) shapes.push(failureSchema(endpoint, [...codes]));
    out.set(status, shapes.length === 1 && shapes[0] ? shapes[0] : { oneOf: shapes });
  }
  return out;
}

function responses(endpoint: Endpoint): JsonObject {
  const out: JsonObject = {};
  for (const [status, schema] of responseSchemas(endpoint)) {
    const headers: JsonObject = {
      'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
      'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
      'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
    };
    if (status === 429 || status === 503) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    out[String(status)] = { description: describeStatus(status), headers, content: { 'application/json': { schema } } };
  }
  return out;
}

function describeStatus(status: number): string {
  const words: Record<number, string> = {
    200: 'Answered: success, or a failure the spec answers with 200 (read result_code)',
    400: 'Refused: a field or the body is invalid',
    401: 'Refused: the key is missing or not valid',
    403: 'Refused: key state, account, permission, address or balance',
    413: 'Refused: the body is larger than this endpoint takes',
    429: 'Refused: a request limit or the request rate (see Retry-After)',
    500: 'Unexpected server error (when the store did not answer a commit, the request may have been carried out: look before sending it again)',
    503: 'Not carried out: the service cannot take requests now (its store is away or full, or too many bodies are in flight); send it again after Retry-After',
  };
  return words[status] ?? `HTTP ${status}`;
}

/** A copy in which every object also takes fields it does not declare. */
function opened(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(opened);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === 'additionalProperties' && v === false ? true : opened(v);
  return out;
}

/**
 * The route's response schemas for Fastify's serializer: the document's, with every object
 * open. The serializer then never drops a field a handler adds (the document is closed, and
 * the suite's response check fails on such a field instead, docs/decisions.md), while a
 * declared field that is missing or of another type still fails at serialization.
 */
export function serializerSchemas(endpoint: Endpoint): Record<number, JsonObject> {
  // Derived from the endpoint alone: built once per endpoint, however many apps a process builds.
  let out = serializerCache.get(endpoint);
  if (!out) {
    out = {};
    for (const [status, schema] of responseSchemas(endpoint)) out[status] = opened(schema) as JsonObject;
    serializerCache.set(endpoint, out);
  }
  return out;
}
const serializerCache = new WeakMap<Endpoint, Record<number, JsonObject>>();
