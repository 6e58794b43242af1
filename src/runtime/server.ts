/**
 * The start and stop of a `serve` process: the HTTP thread's application container on the
 * store, the two job threads (unless `--worker false`), the wakes and the hand-off between
 * them, the request path's warm-up, the port; and, on SIGTERM or SIGINT, the stop in the
 * reverse order, so that nothing accepted is lost.
 */
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import {
  dispatchWindow,
  openHttpThread,
  openSmppServer,
  relayContainerWakes,
  serveLocation,
  stopHttp,
  threadsWokenBy,
} from '../main.js';
import type { AppContainer, HttpThread, OpenSmppServer, ServeHttp, StoreLocation } from '../main.js';
import { JobThreads } from './job-threads.js';
import { WarmUp } from './warm-up.js';

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
 * Starts `serve` up to its open port; rejects with a clear message when it cannot start (a
 * bad carrier configuration, an unreadable store, the port taken), having stopped what it
 * started.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const location = serveLocation(config);
  let thread: HttpThread;
  try {
    thread = await openHttpThread(location, config, logger);
  } catch (error) {
    throw new Error(`cannot open the store: ${reason(error)}`);
  }
  const { container } = thread;
  const threads = config.worker ? await startJobThreads(location, config, container, logger) : null;
  if (!config.worker && config.notify) wakeOtherProcesses(container, logger);
  if (config.warmUp > 0) await warmUp(config, logger);
  const http = await thread.serveHttp(threads);
  const undo = async (): Promise<void> => {
    await threads?.stop();
    await http.traffic.stop();
    await container.close();
    await http.rateCounter?.close();
  };
  const address = await listen(http.app, config, undo);
  let ops: Ops | null = null;
  if (http.opsApp !== null && config.opsPort !== null) {
    try {
      ops = await openOps(http.opsApp, { port: config.opsPort, host: config.opsHost }, logger);
    } catch (error) {
      await http.app.close();
      await undo();
      throw error;
    }
  }
  let smppServer: OpenSmppServer | null = null;
  try {
    smppServer = await openSmppServer(container, config, logger, http.smppMetrics);
    const open = smppServer;
    if (open) http.live.showSmppSessions(() => open.sessions());
  } catch (error) {
    await ops?.close();
    await http.app.close();
    await undo();
    throw error;
  }
  return { container, address, stop: stopper({ config, logger, container, threads, ops, http, smppServer }) };
}

/**
 * The job threads, started before the port opens on the store the HTTP thread opened (and
 * migrated): a bad carrier configuration stops start-up (the container is closed, the error
 * says why). If one dies later, the process goes with it (as an error in the same thread
 * would) so a supervisor restarts the whole service.
 */
async function startJobThreads(
  location: StoreLocation,
  config: Config,
  container: AppContainer,
  logger: Logger,
): Promise<JobThreads> {
  const crashed = (error: Error): void => {
    logger.fatal({ err: error }, 'a delivery thread failed');
    logger.flush();
    process.exit(1);
  };
  const window = dispatchWindow();
  let threads: JobThreads;
  try {
    threads = await JobThreads.start({ location, config, window, onCrash: crashed, metrics: config.opsPort !== null });
  } catch (error) {
    await container.close();
    throw new Error(`cannot start the delivery worker: ${reason(error)}`);
  }
  // Sends accepted here go straight to the dispatch thread, already leased to it.
  threads.connect(container, window, config.leaseMs);
  return threads;
}

/**
 * A process without job threads on PostgreSQL: its commits of messages (and events) wake
 * the job threads of the other processes with NOTIFY, each channel to the threads whose rows
 * it wakes, at most once per turn of the event loop (the wakes' relay). A NOTIFY that fails
 * costs a delay to their next poll, not work.
 */
function wakeOtherProcesses(container: AppContainer, logger: Logger): void {
  const wakes = container.wakes;
  if (!wakes.shared) return;
  const send = (job: 'dispatch' | 'webhooks'): void =>
    void wakes
      .notify(job)
      .catch((error: unknown) =>
        logger.warn({ err: error, job }, 'NOTIFY failed: other processes find the work at their next poll'),
      );
  relayContainerWakes(container, 'http', (channel) => {
    for (const thread of threadsWokenBy(channel)) send(thread);
  });
}

/** The operations listener, open; `stopping()` turns its probes to 503 for the stop. */
interface Ops {
  stopping(): void;
  close(): Promise<void>;
}

/** Opens the operations listener (its app: `opsApp`) and logs where; a port taken stops start-up. */
async function openOps(
  opsApp: NonNullable<ServeHttp['opsApp']>,
  where: { port: number; host: string },
  logger: Logger,
): Promise<Ops> {
  let stopping = false;
  const app = await opsApp(() => stopping);
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

/** What the stop of a `serve` process stops, in its order. */
interface Stoppable {
  config: Config;
  logger: Logger;
  container: AppContainer;
  threads: JobThreads | null;
  ops: Ops | null;
  http: ServeHttp;
  /** The SMPP server for customers, when opened. */
  smppServer: OpenSmppServer | null;
}

/** What the stop may take past the drain (requests in flight, submits under way, the store's close) before the process exits anyway. */
const stopGraceMs = 15_000;

function stopper({
  config,
  logger,
  container,
  threads,
  ops,
  http,
  smppServer,
}: Stoppable): (signal: string) => Promise<void> {
  let stopping = false;
  return async (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new requests, finishing the ones in flight');
    // A stop that cannot finish (a store that never answers, a thread that never ends) still
    // ends the process: a supervisor's SIGTERM must be enough.
    const deadlineMs = config.drainMs + stopGraceMs;
    setTimeout(() => {
      logger.error({ signal, deadlineMs }, `the stop did not finish within ${deadlineMs} ms: exiting without it`);
      logger.flush();
      process.exit(1);
    }, deadlineMs);
    // The operations listener's probes say so at once; its metrics stay up to the end.
    ops?.stopping();
    // Keep-alive clients get an answer with Connection: close for what they still send,
    // then close() stops accepting connections and waits for in-flight requests to finish.
    await stopHttp(http.app, config);
    // SMPP sessions are unbound; submits in flight are answered before the store closes.
    await smppServer?.close();
    // Submits and webhook attempts in flight finish and are recorded before the store
    // closes (what is not yet attempted stays pending in the store).
    await threads?.stop();
    await http.traffic.stop();
    await container.close();
    await http.rateCounter?.close();
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
