/**
 * The HTTP side built from a container: the API and its contract, the probes and the
 * customer panel as surfaces of one server; the operations listener; and their stop.
 * Fastify and the panel are loaded only here, when a server is built: the admin commands
 * share the composition root and need neither.
 */
import { shortLinkPath } from '../domain/short-links.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { connectionLimits } from '../config.js';
import type { Config } from '../config.js';
import type { ApiMetrics } from '../ports/metrics.js';
import type { RateCounter } from '../ports/rate-counter.js';
import { Readiness } from '../services/readiness.js';
import type { PanelPluginOptions } from '../panel/plugin.js';
import type { Surface } from '../http/app.js';
import type { AppContainer } from './container.js';
import { webhookAdmin } from './webhooks.js';
import type { ProviderLive } from '../services/panel/provider/provider-live.js';

export interface HttpParts {
  container: AppContainer;
  config: Config;
  logger: Logger;
  /** What /readyz checks: the store, and the carrier when `serve` runs one (default: the store alone). */
  readiness?: Readiness | undefined;
  /** Where each answered API request is counted (the operations listener's /metrics). */
  metrics?: ApiMetrics | undefined;
  /** The provider console's live page (`serve`; without it the page shows no live data). */
  live?: ProviderLive | undefined;
  /** Where the per-key rate is counted for a cluster; unset: in this process. */
  rateCounter?: RateCounter | undefined;
}

/** The probes' readiness on the container's store alone (no carrier to check). */
function storeReadiness(container: AppContainer): Readiness {
  return new Readiness({ store: container.store });
}

/** The HTTP server of this container: the API, its contract, the probes (/healthz, /readyz) and the panel. */
export async function createHttp(parts: HttpParts): Promise<FastifyInstance> {
  const { container, config, logger, metrics, live, rateCounter } = parts;
  // Loaded here, not at the top: admin commands share the composition root and need no HTTP server.
  const { buildApp } = await import('../http/app.js');
  const { healthSurface } = await import('../http/health.js');
  const readiness = parts.readiness ?? storeReadiness(container);
  return buildApp({
    services: container.services,
    surfaces: [
      healthSurface(readiness),
      ...(config.panel ? [await panelSurface(container, config, live)] : []),
      ...(await shortLinks(container, config)),
    ],
    logger,
    trustedProxies: config.trustedProxies,
    requestsPerSecond: config.requestsPerSecond,
    accessLogSample: config.accessLogSample,
    ...(metrics ? { metrics } : {}),
    ...(rateCounter ? { rateCounter } : {}),
    connections: connectionLimits(config),
    bodyBytesInFlight: config.bodyBytesInFlight,
  });
}

/** The short links' redirects under the path of `--short-link-base`, when it is set. */
async function shortLinks(container: AppContainer, config: Config): Promise<Surface[]> {
  if (config.shortLinkBase === '') return [];
  const checked = shortLinkPath(config.shortLinkBase);
  if ('error' in checked) throw new Error(`--short-link-base: ${checked.error}`);
  const { shortLinkSurface } = await import('../http/short-link-surface.js');
  return [shortLinkSurface(checked.path, container.services.links)];
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
      campaigns: container.services.campaigns,
      links: container.services.links,
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
