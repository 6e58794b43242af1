import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Endpoint } from '../endpoints/endpoint.js';
import { endpoints as defaultEndpoints } from '../endpoints/index.js';
import type { Services } from '../services/services.js';
import { smallBodyLimit } from '../endpoints/body-limits.js';
import { capLog, limitConnections } from './connection-limits.js';
import { drainOnStop } from './drain-on-stop.js';
import { BodyBudget, bodyBudgetLog, defaultBodyBytesInFlight, limitBodyBytes } from './body-budget.js';
import type { ConnectionLimits } from './connection-limits.js';
import { apiPlugin } from './api-plugin.js';
import { contractPlugin } from './contract.js';
import { requestId } from './request-id.js';
import type { ApiMetrics } from '../ports/metrics.js';
import type { RateCounter } from '../ports/rate-counter.js';

export interface AppOptions {
  services: Services;
  logger?: Logger;
  /** Proxies whose X-Forwarded-For is believed; empty: the socket address is the client. */
  trustedProxies?: string[];
  /** General request rate per key, per second; 0 turns it off. */
  requestsPerSecond?: number;
  /** Where the per-key rate is counted for a cluster (api-plugin.ts); unset: in this process. */
  rateCounter?: RateCounter;
  /** Default largest body, bytes (endpoints may set their own). */
  bodyLimit?: number;
  endpoints?: readonly Endpoint[];
  /** Bytes of request bodies held at once by the whole server (body-budget.ts); default: config's default. */
  bodyBytesInFlight?: number;
  /** Time limits and connection caps: `serve`'s options (config.ts: connectionLimits, defaultConnectionLimits). */
  connections: ConnectionLimits;
  /** false: answers go through JSON.stringify, not their schemas (bench/serializer.bench.ts only). */
  serializeFromSchemas?: boolean;
  /** Share of API requests given an access log line at info (0 to 1; 0: none; below 1, 500s still all). Default 1. */
  accessLogSample?: number;
  /** Where each answered API request is counted (GET /metrics of the operations listener). */
  metrics?: ApiMetrics;
  /** Surfaces mounted beside the API and its contract (the panel, metrics), in this order. */
  surfaces?: readonly Surface[];
}

/**
 * Another surface of the server: a Fastify plugin mounted under `prefix`. Fastify gives a
 * prefixed plugin its own not-found handler, so what it sets with `setNotFoundHandler` and
 * `setErrorHandler` answers every path under the prefix, and nothing else; the API's answer
 * every other path. The prefix may not hold an API path.
 */
export interface PrefixedSurface {
  /** Where its routes live, e.g. '/panel': no trailing slash. */
  prefix: `/${string}`;
  plugin: FastifyPluginAsync;
}

/**
 * A surface of a few exact paths at the root (the probes: /healthz, /readyz). It owns those
 * paths and nothing else: a route it adds at another path is refused when it is mounted,
 * and it sets no not-found handler (the root's is the API's). Its error handler answers
 * for its paths alone.
 */
export interface RootSurface {
  paths: readonly `/${string}`[];
  plugin: FastifyPluginAsync;
}

export type Surface = PrefixedSurface | RootSurface;

export const defaultBodyLimit = smallBodyLimit;

const drains = new WeakMap<FastifyInstance, (ms: number) => Promise<void>>();

/**
 * Stops the app as a client would want it: for up to `ms`, every request still arriving on
 * an open connection is answered 503 by its surface (the API: SRV-ERR in its envelope) with
 * `Connection: close` (and
 * every answer in flight carries `Connection: close`), so keep-alive clients move on with
 * an answer rather than a reset; then the app closes, finishing the requests in flight.
 */
export async function stopApp(app: FastifyInstance, ms: number): Promise<void> {
  await drains.get(app)?.(ms);
  await app.close();
}

/**
 * The HTTP server: its server-level concerns (time limits, connection caps, the drain on
 * stop: they hold for every surface), then its surfaces. The API (api-plugin.ts) and its
 * contract (contract.ts) are always there; `options.surfaces` are mounted beside them.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const table = options.endpoints ?? defaultEndpoints;
  const surfaces = options.surfaces ?? [];
  checkSurfaces(surfaces, table);
  const trusted = options.trustedProxies ?? [];
  const limits = options.connections;
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger | undefined,
    logController: new LogController({ disableRequestLogging: true }),
    // No logger of its own per request: Fastify would build a pino child (its bindings,
    // its redaction) for every request, about 5 us each, for the rare error line.
    childLoggerFactory: (logger) => logger,
    // The client's X-Request-Id when well formed, else a new one; answered in X-Request-Id.
    genReqId: requestId,
    bodyLimit: options.bodyLimit ?? defaultBodyLimit,
    trustProxy: trusted.length > 0 ? trusted : false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Requests that arrive while the server stops are answered by the drain hook below, by
    // their surface, not with Fastify's own 503 body.
    return503OnClosing: false,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the header and request time limits on this interval: the limits hold to
    // within it (its default of 30 s would let a slow client hold on 30 s longer).
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
  });
  // First of the root's hooks: every answer of every surface carries its request id, the drain's too.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  const open = limitConnections(app.server, limits, capLog(app.log));
  limitBodyBytes(app, new BodyBudget(options.bodyBytesInFlight ?? defaultBodyBytesInFlight), bodyBudgetLog(app.log));
  drains.set(app, drainOnStop(app, open));

  await app.register(apiPlugin, {
    services: options.services,
    table,
    requestsPerSecond: options.requestsPerSecond ?? 100,
    bodyLimit: options.bodyLimit ?? defaultBodyLimit,
    serializeFromSchemas: options.serializeFromSchemas !== false,
    accessLogSample: options.logger ? (options.accessLogSample ?? 1) : 0,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.rateCounter ? { rateCounter: options.rateCounter } : {}),
  });
  await app.register(contractPlugin, { table });
  for (const surface of surfaces) {
    if ('prefix' in surface) await app.register(surface.plugin, { prefix: surface.prefix });
    else await app.register(rootSurface(surface));
  }
  return app;
}

/** A root surface in a context of its own that refuses any route outside its paths. */
function rootSurface(surface: RootSurface): FastifyPluginAsync {
  const owned = new Set<string>(surface.paths);
  return async (scope) => {
    scope.addHook('onRoute', (route) => {
      if (!owned.has(route.url))
        throw new Error(`a root surface of ${surface.paths.join(', ')} adds a route at ${route.url}`);
    });
    await scope.register(surface.plugin);
  };
}

/**
 * A surface's prefix may not be the root, end in a slash, or hold a path of the API or its
 * contract; a root surface's paths may not be one of those, nor lie under a prefix.
 */
function checkSurfaces(surfaces: readonly Surface[], table: readonly Endpoint[]): void {
  const apiPaths = [...table.map((e) => e.path), '/openapi.json', '/docs'];
  const prefixes = surfaces.flatMap((s) => ('prefix' in s ? [s.prefix] : []));
  for (const prefix of prefixes) {
    if (!/^\/[^/]/.test(prefix) || prefix.endsWith('/'))
      throw new Error(`surface prefix ${prefix}: it must start with / and not end with one`);
    const taken = apiPaths.find((path) => path === prefix || path.startsWith(`${prefix}/`));
    if (taken !== undefined) throw new Error(`surface prefix ${prefix} holds the API path ${taken}`);
  }
  const rootPaths = surfaces.flatMap((s) => ('paths' in s ? s.paths : []));
  for (const path of rootPaths) {
    if (!/^\/[^/]/.test(path)) throw new Error(`surface path ${path}: it must start with / and name something`);
    const apiPath = apiPaths.map((p) => p.replace(/\/$/, '')).includes(path.replace(/\/$/, ''));
    if (apiPath) throw new Error(`surface path ${path} is (or differs by a slash from) an API path`);
    const under = prefixes.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    if (under !== undefined) throw new Error(`surface path ${path} lies under the surface prefix ${under}`);
  }
  if (new Set(rootPaths).size !== rootPaths.length) throw new Error('two root surfaces claim the same path');
}
