import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RateCounter } from '../ports/rate-counter.js';
import type { Endpoint } from '../endpoints/endpoint.js';
import type { Services } from '../services/services.js';
import type { Caller } from '../services/auth.js';
import type { KeyWithAccount } from '../ports/keys.js';
import { noApiMetrics } from '../ports/metrics.js';
import type { ApiMetrics } from '../ports/metrics.js';
import { hashApiKey } from '../services/key-secrets.js';
import { renderFailure, renderReply } from './envelope.js';
import { admit, isPlainObject, runEndpoint } from '../endpoints/pipeline.js';
import type { KeyHash } from '../endpoints/pipeline.js';
import { streamingJsonParser } from './streaming-body.js';
import { registerMultipart } from './multipart-body.js';
import { serializerSchemas } from './openapi.js';
import { RateLimited, apiErrorHandler, methodNotAllowed, notFound, send } from './api-answers.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    endpoint?: Endpoint;
  }
  interface FastifyRequest {
    /** The API's, for its access log: the caller once admitted (null before, and outside the API). */
    apiCaller?: Caller | null;
    /** The API's, for its access log: the answer's result_code (api-answers.ts, send). */
    apiResultCode?: string | null;
  }
}

export interface ApiOptions {
  services: Services;
  table: readonly Endpoint[];
  /** General request rate per key, per second; 0 turns it off. */
  requestsPerSecond: number;
  /** Largest body of an endpoint that sets none, bytes. */
  bodyLimit: number;
  /** false: answers go through JSON.stringify, not their schemas (bench/serializer.bench.ts only). */
  serializeFromSchemas: boolean;
  /** Share of requests given an access log line: 0 none; between 0 and 1, that share and every answer of 500 and over. */
  accessLogSample: number;
  /**
   * Where the per-key rate is counted for the whole cluster (Redis, PostgreSQL); unset: in
   * this process's memory. A count that fails lets the request through (fail-open).
   */
  rateCounter?: RateCounter;
  /** Where each answered request is counted (the operations listener's /metrics); none by default. */
  metrics?: ApiMetrics;
}

const otherMethods = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * The key hashes the rate limiter computed, by request, so authentication does not hash the
 * key again. A WeakMap rather than a field of the request: nothing that logs or serialises a
 * request can reach it.
 */
const keyHashes = new WeakMap<FastifyRequest, KeyHash>();

/**
 * The rate's key of a request: its API key's hash, or its address. `prefetch`: with a shared
 * rate counter (a round trip to Redis or the store), the key's lookup starts here, so that
 * its round trip runs beside the count's instead of after it.
 */
function rateKeyOf(
  prefetch: ((hash: string) => Promise<KeyWithAccount | null>) | null,
): (request: FastifyRequest) => string {
  return (request) => {
    const body = request.body;
    if (isPlainObject(body) && typeof body.api_key === 'string' && body.api_key !== '') {
      const hash = hashApiKey(body.api_key);
      keyHashes.set(
        request,
        prefetch === null ? { apiKey: body.api_key, hash } : { apiKey: body.api_key, hash, found: prefetch(hash) },
      );
      return `k:${hash}`;
    }
    return `ip:${request.ip}`;
  };
}

/** The rate's window, ms: the rate is per second. */
const rateWindowMs = 1000;

/**
 * @fastify/rate-limit's store on a RateCounter: one counter for every route, each route's
 * requests under keys of their own (as the plugin's own stores keep them); `max` is every
 * route's limit (a shared counter takes its counts in leases sized by it).
 */
function sharedRateStore(counter: RateCounter, max: number): FastifyRateLimitStoreCtor {
  class Shared implements FastifyRateLimitStore {
    /** The plugin constructs the first with its settings; children are made with their route's prefix. */
    private readonly prefix: string;
    constructor(prefix: unknown) {
      this.prefix = typeof prefix === 'string' ? prefix : '';
    }
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      counter.hit(`${this.prefix}${key}`, rateWindowMs, max).then(
        (r) => callback(null, { current: r.current, ttl: r.ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }
    // Given the route's merged settings, the route itself under `routeInfo`.
    child(settings: object): FastifyRateLimitStore {
      const route = (settings as { routeInfo?: { url?: unknown } }).routeInfo;
      return new Shared(`${typeof route?.url === 'string' ? route.url : ''}:`);
    }
  }
  return Shared;
}

/**
 * What every answered API request leaves behind, in one onResponse hook:
 * - its count and duration in `metrics`, by endpoint and result_code;
 * - one line at info (unless `sample` is 0): its id, the endpoint, HTTP status, result_code,
 *   time in ms, the key's id, and for an accepted send its send id and message ids, so a
 *   message id leads back to its request. Never the body, never the key. A `sample` below 1
 *   logs that share of the requests, and every answer of 500 and over.
 * The endpoint is a path of the table or `other`, never the raw URL.
 */
/** Levels at which an info line is written (the access line is built only then). */
const logsInfo: ReadonlySet<string> = new Set(['info', 'debug', 'trace']);

function observeRequests(api: FastifyInstance, paths: ReadonlySet<string>, sample: number, metrics: ApiMetrics): void {
  api.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    // Not request.routeOptions: it builds an object on every read. A route of the API matched
    // its path exactly, so the URL's path is the route's (and the set check bounds the label).
    const url = request.url;
    const query = url.indexOf('?');
    const path = request.is404 ? 'other' : query === -1 ? url : url.slice(0, query);
    const endpoint = paths.has(path) ? path : 'other';
    const ms = reply.elapsedTime;
    metrics.request(endpoint, request.apiResultCode ?? 'none', ms / 1000);
    if (sample === 0 || (sample < 1 && status < 500 && Math.random() >= sample) || !logsInfo.has(request.log.level))
      return done();
    const caller = request.apiCaller ?? null;
    const line: Record<string, unknown> = {
      requestId: request.id,
      endpoint,
      status,
      result_code: request.apiResultCode ?? null,
      ms: Math.round(ms * 10) / 10,
      keyId: caller === null ? null : caller.key.id,
    };
    const accepted = status === 200 ? caller?.accepted : undefined;
    if (accepted !== undefined) {
      line.sendId = accepted.sendId;
      line.messageIds = accepted.messageIds;
    }
    request.log.info(line, 'api request');
    done();
  });
}

/**
 * The messaging API as one Fastify plugin: the endpoint table's routes, their bodies (JSON,
 * form, multipart, streamed), the per-key rate, and every answer the API gives outside a
 * handler (api-answers.ts). Registered without a prefix, since the spec's paths start at
 * `/`: its not-found handler is therefore the server's last resort, answering every path
 * no surface claims in the API's envelope. A surface registered with a prefix sets its own
 * (app.ts). Its body parsers and hooks stay inside it: no other surface pays for them.
 */
export async function apiPlugin(api: FastifyInstance, options: ApiOptions): Promise<void> {
  const { services, table, bodyLimit } = options;
  await api.register(formbody);
  await registerMultipart(api, bodyLimit);
  const rate = options.requestsPerSecond;
  const rateKey = rateKeyOf(options.rateCounter ? (hash) => services.auth.prefetch(hash) : null);
  if (rate > 0) {
    await api.register(rateLimit, {
      global: false,
      ...(options.rateCounter ? { store: sharedRateStore(options.rateCounter, rate), skipOnError: true } : {}),
      errorResponseBuilder: (_request, context) => new RateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
    });
  }
  const paths = new Set(table.map((e) => e.path));
  // Fields of the request object from its construction: nothing is added to it per request.
  api.decorateRequest('apiCaller', null);
  api.decorateRequest('apiResultCode', null);
  const metrics = options.metrics ?? noApiMetrics;
  if (options.accessLogSample > 0 || metrics !== noApiMetrics)
    observeRequests(api, paths, options.accessLogSample, metrics);
  api.setNotFoundHandler(notFound(paths));
  api.setErrorHandler(apiErrorHandler);

  const routeOf = (endpoint: Endpoint): RouteOptions => ({
    method: 'POST',
    url: endpoint.path,
    bodyLimit: endpoint.bodyLimit ?? bodyLimit,
    // Declared answers: serialized from their schemas (src/http/openapi.ts).
    ...(options.serializeFromSchemas ? { schema: { response: serializerSchemas(endpoint) } } : {}),
    config: {
      endpoint,
      ...(rate > 0
        ? { rateLimit: { max: rate, timeWindow: rateWindowMs, hook: 'preHandler' as const, keyGenerator: rateKey } }
        : {}),
    },
    handler: async (request, reply) => {
      const outcome = await runEndpoint(endpoint, request.body, request.ip, services, keyHashes.get(request), request);
      if (outcome.ok) {
        const { status, body } = renderReply(endpoint, outcome.value);
        return send(reply, status, body);
      }
      if (outcome.retryAfterSeconds !== undefined) reply.header('retry-after', String(outcome.retryAfterSeconds));
      const { status, body } = renderFailure(endpoint, outcome);
      return send(reply, status, body);
    },
  });

  for (const endpoint of table) {
    const streamed = endpoint.streamedBody;
    if (streamed) {
      // Its own context: JSON bodies of this endpoint are read as they arrive, and its key
      // is checked before the rest of a large body is read.
      await api.register(async (context) => {
        context.removeContentTypeParser('application/json');
        context.addContentTypeParser(
          'application/json',
          streamingJsonParser({
            limits: streamed,
            bodyLimit: endpoint.bodyLimit ?? bodyLimit,
            admitKey: async (apiKey, request) => {
              const admitted = await admit(endpoint, { api_key: apiKey }, request.ip, services);
              return admitted.ok ? null : admitted;
            },
          }),
        );
        context.route(routeOf(endpoint));
      });
    } else {
      api.route(routeOf(endpoint));
    }
    api.route({ method: [...otherMethods], url: endpoint.path, handler: methodNotAllowed });
  }
}
