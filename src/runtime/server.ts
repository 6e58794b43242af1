/**
 * The start and stop of a `serve` process: the HTTP thread's application container on the
 * store, the two job threads (unless `--worker false`), the wakes and the hand-off between
 * them, the request path's warm-up, the port; and, on SIGTERM or SIGINT, the stop in the
 * reverse order, so that nothing accepted is lost.
 */
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { openAppContainer, storeLocation } from '../main.js';
import { createHttp, stopHttp } from './http-server.js';
import type { AppContainer } from '../main.js';
import { observeWriteLockWaits, sharedByThreads } from '../adapters/store/index.js';
import type { StoreLocation } from '../adapters/store/index.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';
import { JobThreads } from './job-threads.js';
import { WarmUp } from './warm-up.js';
import { Readiness } from '../services/readiness.js';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics.js';
import { bothMessageMetrics } from '../ports/metrics.js';
import { TrafficCounter } from '../services/traffic-counter.js';
import { ProviderLive } from '../services/panel/provider/provider-live.js';
import { trafficSource } from './traffic-source.js';
import { openRateCounter } from './rate-counting.js';
import type { RateCounter } from '../ports/rate-counter.js';

/** A `serve` process taking requests. */
export interface RunningServer {
  /** The HTTP thread's application container. */
  container: AppContainer;
  /** The address the port listens on, as http://host:port. */
  address: string;
  /** Stops taking requests, finishes the ones in flight and the jobs' work in flight, closes the store and exits 0 (once). */
  stop(signal: string): Promise<void>;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The store of `serve`: on SQLite the HTTP thread and the job threads share one write lock
 * in memory, and with job threads the dispatch thread checkpoints the WAL, so no commit does.
 * On PostgreSQL with `--notify`, the HTTP thread keeps lookup caches emptied by LISTEN.
 */
function serveLocation(config: Config): StoreLocation {
  return sharedByThreads(storeLocation(config), config.worker ? 'manual' : 'auto', config.notify);
}

/**
 * Starts `serve` up to its open port; rejects with a clear message when it cannot start (a
 * bad carrier configuration, an unreadable store, the port taken), having stopped what it
 * started.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const location = serveLocation(config);
  let container: AppContainer;
  try {
    container = await openAppContainer(location, undefined, logger);
  } catch (error) {
    throw new Error(`cannot open the store: ${reason(error)}`);
  }
  // The job threads start before the port opens, on the store the HTTP thread opened (and
  // migrated): a bad carrier configuration stops start-up. If one dies later, the process
  // goes with it (as an error in the same thread would) so a supervisor restarts the whole
  // service.
  const crashed = (error: Error): void => {
    logger.fatal({ err: error }, 'a delivery thread failed');
    logger.flush();
    process.exit(1);
  };
  let threads: JobThreads | null = null;
  if (config.worker) {
    const window = new DispatchWindow(defaultDispatcherOptions.maxInFlight);
    try {
      threads = await JobThreads.start(location, config, window, crashed, config.opsPort !== null);
    } catch (error) {
      await container.close();
      throw new Error(`cannot start the delivery worker: ${reason(error)}`);
    }
    // Sends accepted here go straight to the dispatch thread, already leased to it.
    threads.connect(container, window, config.leaseMs);
  }
  if (!config.worker && config.notify) wakeOtherProcesses(container, logger);
  if (config.warmUp > 0) await warmUp(config, logger);
  const opened = container;
  // Ready when the store answers, and, when the dispatch thread holds carrier connections
  // (SMPP), while one is bound; with --worker false this process holds none.
  const running = threads;
  const readiness = new Readiness({
    store: opened.store,
    ...(running ? { carrierLinks: () => running.carrierLinks() } : {}),
  });
  // Loaded only when asked for: the admin commands share this module's imports.
  const metrics =
    config.opsPort === null
      ? null
      : new (await import('../adapters/metrics/prometheus-metrics.js')).PrometheusMetrics();
  // The provider console's traffic per minute: this thread's accepted messages, a row a minute.
  const traffic = new TrafficCounter(
    opened.store.monitoring,
    trafficSource('http'),
    Date.now,
    { flushMs: config.trafficFlushMs, keepMinutes: 7 * 24 * 60 },
    (error) => logger.warn({ err: error }, 'traffic counts not written'),
  );
  // Counted from here on (the warm-up's requests are not): this thread's accepted messages.
  opened.services.sends.countInto(metrics !== null ? bothMessageMetrics(metrics.thread, traffic) : traffic);
  if (metrics !== null) {
    // This thread's write-lock waits; a scrape adds the job threads' registries and the backlog.
    observeWriteLockWaits((seconds) => metrics.thread.writeLockWait(seconds));
    metrics.readFrom({
      ...(running ? { threads: () => running.metrics() } : {}),
      backlog: () => opened.store.monitoring.backlog(Date.now()),
    });
  }
  traffic.start();
  const live = new ProviderLive(
    opened.store.monitoring,
    running ? () => running.connections() : async () => [],
    Date.now,
  );
  const rateCounter = await openRateCounter(config, logger, opened.store);
  const app = await createHttp(opened, config, logger, readiness, {
    metrics: metrics ?? undefined,
    live,
    rateCounter: rateCounter ?? undefined,
  });
  const undo = async (): Promise<void> => {
    await threads?.stop();
    await traffic.stop();
    await opened.close();
    await rateCounter?.close();
  };
  const address = await listen(app, config, undo);
  let ops: Ops | null = null;
  if (metrics !== null && config.opsPort !== null) {
    try {
      ops = await openOps(readiness, metrics, { port: config.opsPort, host: config.opsHost }, logger);
    } catch (error) {
      await app.close();
      await undo();
      throw error;
    }
  }
  return { container: opened, address, stop: stopper(app, config, logger, opened, threads, ops, traffic, rateCounter) };
}

/**
 * A process without job threads on PostgreSQL: its commits of messages (and events) wake
 * the job threads of the other processes with NOTIFY, at most once per turn of the event
 * loop (the wakes' relay). A NOTIFY that fails costs a delay to their next poll, not work.
 */
function wakeOtherProcesses(container: AppContainer, logger: Logger): void {
  const wakes = container.store.wakes;
  if (!wakes.shared) return;
  const send = (job: 'dispatch' | 'webhooks') => () =>
    void wakes
      .notify(job)
      .catch((error: unknown) =>
        logger.warn({ err: error, job }, 'NOTIFY failed: other processes find the work at their next poll'),
      );
  container.dispatchWake.relayTo(send('dispatch'));
  container.webhookWake.relayTo(send('webhooks'));
}

/** The operations listener, open; `stopping()` turns its probes to 503 for the stop. */
interface Ops {
  stopping(): void;
  close(): Promise<void>;
}

/** Opens the operations listener (ops-app.ts) and logs where; a port taken stops start-up. */
async function openOps(
  readiness: Readiness,
  metrics: PrometheusMetrics,
  where: { port: number; host: string },
  logger: Logger,
): Promise<Ops> {
  const { buildOpsApp } = await import('../http/ops-app.js');
  let stopping = false;
  const app = await buildOpsApp({
    readiness,
    exposition: () => metrics.exposition(),
    stopping: () => stopping,
    logger,
  });
  let address: string;
  try {
    address = await app.listen(where);
  } catch (error) {
    await app.close();
    const code = (error as { code?: string }).code;
    const why =
      code === 'EADDRINUSE'
        ? 'the port is already in use'
        : code === 'EADDRNOTAVAIL'
          ? 'the address is not on this machine'
          : reason(error);
    throw new Error(`cannot open the operations listener on ${where.host}:${where.port}: ${why}`);
  }
  logger.info({ address }, `operations listener on ${address} (GET /metrics, /healthz, /readyz)`);
  return {
    stopping: () => (stopping = true),
    close: () => app.close(),
  };
}

/** The request path's warm-up (warm-up.ts), logged; one that cannot run leaves the server to start cold. */
async function warmUp(config: Config, logger: Logger): Promise<void> {
  let warm: WarmUp | null = null;
  try {
    warm = await WarmUp.prepare();
    const { requests, ms, unexpected } = await warm.run(config, config.warmUp);
    if (unexpected > 0)
      logger.warn(
        { requests, ms, unexpected },
        'request path warmed up, but some warm-up requests were not answered 200',
      );
    else logger.info({ requests, ms, unexpected }, 'request path warmed up');
  } catch (error) {
    logger.warn({ err: error }, 'warm-up skipped: the server starts cold');
  } finally {
    await warm?.close();
  }
}

/** Opens the port; when it cannot, `undo` stops what was started, and the error says why in plain words. */
async function listen(app: FastifyInstance, config: Config, undo: () => Promise<void>): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await undo();
    const where = `${config.host}:${config.port}`;
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new Error(`cannot listen on ${where}: the port is already in use`);
    if (code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${where}: the address is not on this machine`);
    throw new Error(`cannot listen on ${where}: ${reason(error)}`);
  }
}

function stopper(
  app: FastifyInstance,
  config: Config,
  logger: Logger,
  container: AppContainer,
  threads: JobThreads | null,
  ops: Ops | null,
  traffic: TrafficCounter,
  rateCounter: RateCounter | null,
): (signal: string) => Promise<void> {
  let stopping = false;
  return async (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new requests, finishing the ones in flight');
    // The operations listener's probes say so at once; its metrics stay up to the end.
    ops?.stopping();
    // Keep-alive clients get an answer with Connection: close for what they still send,
    // then close() stops accepting connections and waits for in-flight requests to finish.
    await stopHttp(app, config);
    // Submits and webhook attempts in flight finish and are recorded before the store
    // closes (what is not yet attempted stays pending in the store).
    await threads?.stop();
    await traffic.stop();
    await container.close();
    await rateCounter?.close();
    await ops?.close();
    logger.info('stopped');
    logger.flush();
    process.exit(0);
  };
}

/** SIGTERM and SIGINT stop the server gracefully. */
export function stopOnSignals(server: RunningServer): void {
  process.once('SIGTERM', (signal) => void server.stop(signal));
  process.once('SIGINT', (signal) => void server.stop(signal));
}
