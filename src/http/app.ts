import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { Logger } from 'pino';
import type { Endpoint } from '../endpoints/endpoint.js';
import { endpoints as defaultEndpoints } from '../endpoints/index.js';
import type { Services } from '../services/services.js';
import { renderBody, renderFailure, renderReply, statusOf } from './envelope.js';
import type { Body } from './envelope.js';
import { admit, isPlainObject, runEndpoint } from './pipeline.js';
import { smallBodyLimit } from '../endpoints/body-limits.js';
import { BodyRefused, BodyTooLarge, KeyRefused, streamingJsonParser } from './streaming-body.js';
import { discardRest } from './discard-rest.js';
import { limitConnections } from './connection-limits.js';
import { drainOnStop } from './drain-on-stop.js';
import { registerMultipart } from './multipart-body.js';
import type { ConnectionLimits } from './connection-limits.js';
import { defaultConnectionLimits } from './connection-limits.js';
import type { KeyHash } from './pipeline.js';
import { hashApiKey } from '../services/key-secrets.js';
import { errorFields } from '../util/error-fields.js';
import { contractRoutes } from './contract.js';
import { serializerSchemas } from './openapi.js';
import { panelPlugin } from '../panel/plugin.js';
import type { PanelPluginOptions } from '../panel/plugin.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    endpoint?: Endpoint;
  }
}

export interface AppOptions {
  services: Services;
  logger?: Logger;
  /** Proxies whose X-Forwarded-For is believed; empty: the socket address is the client. */
  trustedProxies?: string[];
  /** General request rate per key, per second; 0 turns it off. */
  requestsPerSecond?: number;
  /** Default largest body, bytes (endpoints may set their own). */
  bodyLimit?: number;
  endpoints?: readonly Endpoint[];
  /** Time limits and connection caps (defaults: `defaultConnectionLimits`). */
  connections?: Partial<ConnectionLimits>;
  /** false: answers go through JSON.stringify, not their schemas (bench/serializer.bench.ts only). */
  serializeFromSchemas?: boolean;
  /** The customer panel at /panel/ (src/panel); absent: no panel. */
  panel?: PanelPluginOptions;
}

/** Raised by the rate limiter, answered as TS-1060 with HTTP 429. */
class RateLimited extends Error {
  readonly statusCode = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('request rate exceeded');
  }
}

export const defaultBodyLimit = smallBodyLimit;
const otherMethods = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

function send(reply: FastifyReply, status: number, body: Body): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Which family a path belongs to decides the envelope and code of a wrong path. */
function wrongPath(path: string): { envelope: 'result' | 'status'; code: 'TS-404' | 'TS-1033' } {
  if (path.startsWith('/blacklist/')) return { envelope: 'status', code: 'TS-404' };
  if (path.startsWith('/reports/')) return { envelope: 'status', code: 'TS-1033' };
  return { envelope: 'result', code: 'TS-404' };
}

/**
 * The key hashes the rate limiter computed, by request, so authentication does not hash the
 * key again. A WeakMap rather than a field of the request: nothing that logs or serialises a
 * request can reach it.
 */
const keyHashes = new WeakMap<FastifyRequest, KeyHash>();

function rateKey(request: FastifyRequest): string {
  const body = request.body;
  if (isPlainObject(body) && typeof body.api_key === 'string' && body.api_key !== '') {
    const hash = hashApiKey(body.api_key);
    keyHashes.set(request, { apiKey: body.api_key, hash });
    return `k:${hash}`;
  }
  return `ip:${request.ip}`;
}

const drains = new WeakMap<FastifyInstance, (ms: number) => Promise<void>>();

/**
 * Stops the app as a client would want it: for up to `ms`, every request still arriving on
 * an open connection is answered in the envelope with SRV-ERR and `Connection: close` (and
 * every answer in flight carries `Connection: close`), so keep-alive clients move on with
 * an answer rather than a reset; then the app closes, finishing the requests in flight.
 */
export async function stopApp(app: FastifyInstance, ms: number): Promise<void> {
  await drains.get(app)?.(ms);
  await app.close();
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const table = options.endpoints ?? defaultEndpoints;
  const trusted = options.trustedProxies ?? [];
  const limits: ConnectionLimits = { ...defaultConnectionLimits, ...options.connections };
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger | undefined,
    logController: new LogController({ disableRequestLogging: true }),
    // No logger of its own per request: Fastify would build a pino child (its bindings,
    // its redaction) for every request, about 5 us each, for the rare error line.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.bodyLimit ?? defaultBodyLimit,
    trustProxy: trusted.length > 0 ? trusted : false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Requests that arrive while the server stops are answered by the drain hook below, in
    // the envelope, not with Fastify's own 503 body.
    return503OnClosing: false,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the header and request time limits on this interval: the limits hold to
    // within it (its default of 30 s would let a slow client hold on 30 s longer).
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
  });
  const open = limitConnections(app.server, limits);
  const drain = drainOnStop(app, open);
  drains.set(app, drain);

  await app.register(formbody);
  await registerMultipart(app, options.bodyLimit ?? defaultBodyLimit);
  const rate = options.requestsPerSecond ?? 100;
  if (rate > 0) {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) => new RateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
    });
  }

  const byPath = new Map(table.map((e) => [e.path, e]));
  await app.register(contractRoutes, { table });
  if (options.panel) await app.register(panelPlugin, { prefix: '/panel', ...options.panel });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const other = path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    const { envelope, code } = wrongPath(path);
    if (byPath.has(other)) {
      reply.header('location', other);
      return send(reply, 301, renderBody(envelope, false, code, { location: other }, false, `Moved: the path is ${other}`));
    }
    return send(reply, 404, renderBody(envelope, false, code, {}, false, 'Not found'));
  });

  app.setErrorHandler(async (error, request, reply) => {
    const endpoint = request.routeOptions.config.endpoint;
    const status = typeof (error as { statusCode?: unknown }).statusCode === 'number' ? (error as { statusCode: number }).statusCode : 500;
    if (error instanceof RateLimited && endpoint) {
      reply.header('retry-after', String(error.retryAfterSeconds));
      return send(reply, 429, renderBody(endpoint.envelope, false, 'TS-1060', {}, false, 'Request rate exceeded'));
    }
    if (endpoint && status >= 400 && status < 500) {
      // Answered before the body was read to its end: the answer goes out now, and the rest
      // is read and dropped (up to a bound), so the client, still writing, gets the answer
      // rather than a broken pipe.
      // Fastify marks a body its parser refused `Connection: close`; the rest is dropped
      // here instead, so the connection can serve the client's next request.
      discardRest(request.raw);
      reply.removeHeader('connection');
      if (error instanceof KeyRefused) {
        const { status: http, body } = renderFailure(endpoint, error.failure);
        return send(reply, http, body);
      }
      if (status === 413) {
        const limit = error instanceof BodyTooLarge ? error.limit : (request.routeOptions.bodyLimit ?? defaultBodyLimit);
        return send(reply, 413, renderBody(endpoint.envelope, false, endpoint.invalidBody, {}, false, `Request body too large: at most ${limit} bytes on ${endpoint.path}`));
      }
      if (error instanceof BodyRefused) {
        // A member of a streamed body of the wrong shape answers with that field's code.
        const code = (error.field !== undefined ? endpoint.streamedBody?.fieldCodes?.[error.field] : undefined) ?? endpoint.invalidBody;
        return send(reply, statusOf(endpoint, code, code === endpoint.invalidBody ? 'body' : 'field', false), renderBody(endpoint.envelope, false, code, {}, false, error.message));
      }
      // Malformed, poisoned or wrongly typed bodies: the endpoint's invalid-body code.
      const http = statusOf(endpoint, endpoint.invalidBody, 'body', false);
      return send(reply, http, renderBody(endpoint.envelope, false, endpoint.invalidBody));
    }
    request.log.error({ err: errorFields(error), path: request.routeOptions.url }, 'unexpected error');
    const code = endpoint?.serverError ?? 'SRV-ERR';
    return send(reply, 500, renderBody(endpoint?.envelope ?? 'result', false, code));
  });


  const routeOf = (endpoint: Endpoint): RouteOptions => ({
    method: 'POST',
    url: endpoint.path,
    bodyLimit: endpoint.bodyLimit ?? options.bodyLimit ?? defaultBodyLimit,
    // Declared answers: serialized from their schemas (src/http/openapi.ts).
    ...(options.serializeFromSchemas === false ? {} : { schema: { response: serializerSchemas(endpoint) } }),
    config: {
      endpoint,
      ...(rate > 0 ? { rateLimit: { max: rate, timeWindow: 1000, hook: 'preHandler' as const, keyGenerator: rateKey } } : {}),
    },
    handler: async (request, reply) => {
      const outcome = await runEndpoint(endpoint, request.body, request.ip, options.services, keyHashes.get(request));
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
      await app.register(async (context) => {
        context.removeContentTypeParser('application/json');
        context.addContentTypeParser(
          'application/json',
          streamingJsonParser({
            limits: streamed,
            bodyLimit: endpoint.bodyLimit ?? defaultBodyLimit,
            admitKey: async (apiKey, request) => {
              const admitted = await admit(endpoint, { api_key: apiKey }, request.ip, options.services);
              return admitted.ok ? null : admitted;
            },
          }),
        );
        context.route(routeOf(endpoint));
      });
    } else {
      app.route(routeOf(endpoint));
    }
    app.route({
      method: [...otherMethods],
      url: endpoint.path,
      handler: async (request, reply) => {
        const { envelope, code } = wrongPath(request.url);
        reply.header('allow', 'POST');
        return send(reply, 405, renderBody(envelope, false, code, {}, false, 'Method not allowed: every endpoint accepts POST only'));
      },
    });
  }

  return app;
}
