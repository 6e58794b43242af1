/**
 * The HTTP side of a `serve` process, built from an application container: the API and its
 * contract, the probes and the customer panel as surfaces of one server, and its stop.
 * Fastify and the panel are loaded only here, when a server is built: the admin commands
 * share the composition root (src/main.ts) and need neither.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { AppContainer } from '../main.js';
import { webhookAdmin } from '../main.js';
import { Readiness } from '../services/readiness.js';
import type { ApiMetrics } from '../ports/metrics.js';
import type { RateCounter } from '../ports/rate-counter.js';
import type { PanelPluginOptions } from '../panel/plugin.js';
import type { Surface } from '../http/app.js';
import type { ProviderLive } from '../services/panel/provider/provider-live.js';

/**
 * The HTTP server of this container: the API, its contract, the probes (/healthz, /readyz:
 * `readiness` checks the store, and the carrier when `serve` runs one) and the panel.
 */
export async function createHttp(
  container: AppContainer,
  config: Config,
  logger: Logger,
  readiness: Readiness = new Readiness({ store: container.store }),
  extras: {
    metrics?: ApiMetrics | undefined;
    live?: ProviderLive | undefined;
    rateCounter?: RateCounter | undefined;
  } = {},
): Promise<FastifyInstance> {
  const { metrics, live, rateCounter } = extras;
  // Loaded here, not at the top: admin commands share this module and need no HTTP server.
  const { buildApp } = await import('../http/app.js');
  const { healthSurface } = await import('../http/health.js');
  return buildApp({
    services: container.services,
    surfaces: [healthSurface(readiness), ...(config.panel ? [await panelSurface(container, config, live)] : [])],
    logger,
    trustedProxies: config.trustedProxies,
    requestsPerSecond: config.requestsPerSecond,
    accessLogSample: config.accessLogSample,
    ...(metrics ? { metrics } : {}),
    ...(rateCounter ? { rateCounter } : {}),
    connections: {
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      idleTimeoutMs: config.idleTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    },
  });
}

/** The customer panel at /panel/, a surface beside the API (loaded only when served). */
async function panelSurface(container: AppContainer, config: Config, live?: ProviderLive): Promise<Surface> {
  const { panelPlugin } = await import('../panel/plugin.js');
  const options = await panelOptions(container, config, live);
  return { prefix: '/panel', plugin: async (app) => panelPlugin(app, options) };
}

/** What the panel works with: its services (src/services/panel/) on the container's store. */
async function panelOptions(container: AppContainer, config: Config, live?: ProviderLive): Promise<PanelPluginOptions> {
  const { panelServices } = await import('../services/panel/panel-services.js');
  const { defaultSessionPolicy } = await import('../services/panel/users.js');
  const webhooks = webhookAdmin(container, config);
  return {
    ...panelServices({
      store: container.store,
      clock: container.clock,
      sends: container.services.sends,
      webhooks: webhooks.admin,
      sessionPolicy: {
        ...defaultSessionPolicy,
        idleMs: config.panelIdleMinutes * 60_000,
        absoluteMs: config.panelSessionHours * 3600_000,
      },
      live,
    }),
    close: () => webhooks.close(),
  };
}

/** Stops the HTTP side: a drain of `--drain-ms` for keep-alive clients, then the requests in flight finish. */
export async function stopHttp(app: FastifyInstance, config: Pick<Config, 'drainMs'>): Promise<void> {
  const { stopApp } = await import('../http/app.js');
  await stopApp(app, config.drainMs);
}
