import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { Logger } from 'pino';
import type { Endpoint } from '../endpoints/endpoint.js';
import { endpoints as defaultEndpoints } from '../endpoints/index.js';
import type { Services } from '../services/services.js';
import { renderBody, renderFailure, renderReply, statusOf } from './envelope.js';
import type { Body } from './envelope.js';
import { isPlainObject, runEndpoint } from './pipeline.js';
import type { KeyHash } from './pipeline.js';
import { hashApiKey } from '../services/key-secrets.js';
import { errorFields } from '../util/error-fields.js';

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
}

/** Raised by the rate limiter, answered as TS-1060 with HTTP 429. */
class RateLimited extends Error {
  readonly statusCode = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('request rate exceeded');
  }
}

export const defaultBodyLimit = 1024 * 1024;
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

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const table = options.endpoints ?? defaultEndpoints;
  const trusted = options.trustedProxies ?? [];
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
    return503OnClosing: true,
  });

  await app.register(formbody);
  const rate = options.requestsPerSecond ?? 100;
  if (rate > 0) {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) => new RateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
    });
  }

  const byPath = new Map(table.map((e) => [e.path, e]));

  for (const endpoint of table) {
    app.route({
      method: 'POST',
      url: endpoint.path,
      bodyLimit: endpoint.bodyLimit ?? options.bodyLimit ?? defaultBodyLimit,
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
      // Malformed, poisoned, oversized or wrongly typed bodies: the endpoint's invalid-body code.
      const http = status === 413 ? 413 : statusOf(endpoint, endpoint.invalidBody, 'body', false);
      return send(reply, http, renderBody(endpoint.envelope, false, endpoint.invalidBody));
    }
    request.log.error({ err: errorFields(error), path: request.routeOptions.url }, 'unexpected error');
    const code = endpoint?.serverError ?? 'SRV-ERR';
    return send(reply, 500, renderBody(endpoint?.envelope ?? 'result', false, code));
  });

  return app;
}
