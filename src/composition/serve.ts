/**
 * The HTTP thread of `serve` (runtime/server.ts puts it in order with the job threads, the
 * warm-up, the port and the stop): its container, opened first; then, once the job threads
 * run and the warm-up is done, its HTTP side: readiness, metrics, the console's traffic and
 * live page, the per-key rate, the app and the operations listener's app.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CarrierLinks, ConnectionState } from '../ports/carrier.js';
import { bothMessageMetrics, noSmppServerMetrics } from '../ports/metrics.js';
import type { SmppServerMetrics } from '../ports/metrics.js';
import type { RateCounter } from '../ports/rate-counter.js';
import { Readiness } from '../services/readiness.js';
import { ProviderLive } from '../services/panel/provider/provider-live.js';
import type { StoreLocation } from '../adapters/store/index.js';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics.js';
import type { MetricsJson } from '../adapters/metrics/thread-metrics.js';
import { openAppContainer } from './container.js';
import type { AppContainer } from './container.js';
import { openRateCounter } from './rate-counting.js';
import { trafficCounter } from './traffic.js';
import { createHttp } from './http.js';

/** What the HTTP thread asks of its job threads (runtime/job-threads.ts). */
export interface JobThreadsView {
  /** The dispatch thread's live carrier connections, as it last told (null: none told, the simulator). */
  carrierLinks(): CarrierLinks | null;
  /** Both threads' metrics registries, as plain data. */
  metrics(): Promise<MetricsJson[]>;
  /** The dispatch thread's live carrier connections now. */
  connections(): Promise<ConnectionState[]>;
}

/** The HTTP side of `serve`, built; what it holds is stopped by runtime/server.ts in its order. */
export interface ServeHttp {
  app: FastifyInstance;
  /** The console's traffic counts of this thread: stop() writes the last ones. */
  traffic: { stop(): Promise<void> };
  rateCounter: RateCounter | null;
  /** The operations listener's app (ops-app.ts), when metrics are on; `stopping`: its probes answer 503. */
  opsApp: ((stopping: () => boolean) => Promise<FastifyInstance>) | null;
  /** What the SMPP server for customers counts into (nothing without --ops-port). */
  smppMetrics: SmppServerMetrics;
  /** The provider console's live figures: the SMPP server, once open, shows its sessions there. */
  live: ProviderLive;
}

export interface HttpThread {
  container: AppContainer;
  /**
   * Builds the HTTP side; `threads`: the job threads (null with --worker false). Counting
   * starts here: the warm-up's requests, made before, are not counted.
   */
  serveHttp(threads: JobThreadsView | null): Promise<ServeHttp>;
}

/** Opens (and migrates) the HTTP thread's container on `serve`'s store. */
export async function openHttpThread(location: StoreLocation, config: Config, logger: Logger): Promise<HttpThread> {
  // With metrics, this thread's write-lock waits are timed into them once they exist.
  let lockWaits: ((seconds: number) => void) | null = null;
  const container = await openAppContainer(location, undefined, {
    log: logger,
    shortLinkBase: config.shortLinkBase,
    ...(config.opsPort !== null ? { onWriteLockWait: (seconds: number) => lockWaits?.(seconds) } : {}),
  });
  return {
    container,
    async serveHttp(threads) {
      // Loaded only when asked for: the admin commands share the composition root.
      const metrics =
        config.opsPort === null
          ? null
          : new (await import('../adapters/metrics/prometheus-metrics.js')).PrometheusMetrics();
      if (metrics !== null) lockWaits = (seconds) => metrics.thread.writeLockWait(seconds);
      return serveHttp(container, config, logger, { metrics, threads });
    },
  };
}

async function serveHttp(
  container: AppContainer,
  config: Config,
  logger: Logger,
  { metrics, threads }: { metrics: PrometheusMetrics | null; threads: JobThreadsView | null },
): Promise<ServeHttp> {
  // Ready when the store answers, and, when the dispatch thread holds carrier connections
  // (SMPP), while one is bound; with --worker false this process holds none.
  const readiness = new Readiness({
    store: container.store,
    ...(threads ? { carrierLinks: () => threads.carrierLinks() } : {}),
  });
  // The provider console's traffic per minute: this thread's accepted messages, a row a minute.
  const traffic = trafficCounter(container, 'http', config.trafficFlushMs, logger);
  // Counted from here on (the warm-up's requests are not): this thread's accepted messages.
  container.services.sends.countInto(metrics !== null ? bothMessageMetrics(metrics.thread, traffic) : traffic);
  // A scrape adds the job threads' registries and the backlog.
  metrics?.readFrom({
    ...(threads ? { threads: () => threads.metrics() } : {}),
    backlog: () => container.store.monitoring.backlog(Date.now()),
  });
  traffic.start();
  const live = new ProviderLive(
    container.store.monitoring,
    threads ? () => threads.connections() : async () => [],
    Date.now,
  );
  const rateCounter = await openRateCounter(config, logger, container.rates);
  const app = await createHttp({
    container,
    config,
    logger,
    readiness,
    metrics: metrics ?? undefined,
    live,
    rateCounter: rateCounter ?? undefined,
  });
  return {
    app,
    traffic,
    rateCounter,
    opsApp: metrics === null ? null : (stopping) => opsApp(readiness, metrics, stopping, logger),
    smppMetrics: metrics?.smppServer ?? noSmppServerMetrics,
    live,
  };
}

/** The operations listener's app: GET /metrics and the probes. */
async function opsApp(
  readiness: Readiness,
  metrics: PrometheusMetrics,
  stopping: () => boolean,
  logger: Logger,
): Promise<FastifyInstance> {
  const { buildOpsApp } = await import('../http/ops-app.js');
  return buildOpsApp({ readiness, exposition: () => metrics.exposition(), stopping, logger });
}
