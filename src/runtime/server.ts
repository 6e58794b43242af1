/**
 * The start and stop of a `serve` process: the HTTP thread's application container on the
 * store, the two job threads (unless `--worker false`), the wakes and the hand-off between
 * them, the start-up warm-up, the port; and, on SIGTERM or SIGINT, the stop in the reverse
 * order, so that nothing accepted is lost.
 */
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { checkLiveCarrier, createHttp, openAppContainer, stopHttp, storeLocation } from '../main.js';
import type { AppContainer } from '../main.js';
import { ThreadWriteLock } from '../adapters/store/thread-write-lock.js';
import type { StoreLocation } from '../adapters/store/database.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';
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

/** The job threads failed to start, or to move to the real store. */
function jobsCannotStart(error: unknown): Error {
  return new Error(`cannot start the delivery worker: ${reason(error)}`);
}

/**
 * The store of `serve`: on SQLite the HTTP thread and the job threads share one write lock
 * in memory, and with job threads the dispatch thread checkpoints the WAL, so no commit does.
 */
function serveLocation(config: Config): StoreLocation {
  const stored = storeLocation(config);
  if (stored.dialect !== 'sqlite') return stored;
  return { ...stored, threadLock: { buffer: new ThreadWriteLock().buffer, as: { role: 'foreground' } }, checkpoints: config.worker ? 'manual' : 'auto' };
}

/**
 * Starts `serve` up to its open port; rejects with a clear message when it cannot start (a
 * bad carrier configuration, an unreadable store, the port taken), having stopped what it
 * started. The warm-up's store is set up first, so nothing competes with it; it only makes
 * the first seconds faster, so if it cannot run the server starts cold.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  // A bad carrier configuration fails start-up at once, not after the warm-up.
  if (config.worker) {
    const bad = await checkLiveCarrier(config);
    if (bad !== null) throw jobsCannotStart(bad);
  }
  let warm: WarmUp | null = null;
  if (config.warmUp > 0) {
    try {
      warm = await WarmUp.prepare(config);
    } catch (error) {
      logger.warn({ err: error }, 'warm-up skipped: the server starts cold');
    }
  }
  try {
    return await startWarmed(config, logger, warm);
  } finally {
    // On a failed start: every thread has left the warm-up's store by now (stopped).
    await warm?.close();
  }
}

/** Runs the warm-up's requests (with the job threads on its store when they are there) and logs what it did. */
async function runWarmUp(config: Config, logger: Logger, warm: WarmUp, threads: JobThreads | null): Promise<void> {
  const failure = threads?.warmUpFailure ?? null;
  if (failure !== null) logger.warn({ reason: failure }, 'delivery warm-up skipped: the delivery threads start cold');
  try {
    const result = await warm.run(config, config.warmUp, failure === null ? threads : null);
    const fields = { requests: result.requests, ms: result.ms, unexpected: result.unexpected };
    if (result.unexpected > 0) logger.warn(fields, 'request path warmed up, but some warm-up requests were not answered 200');
    else logger.info(fields, 'request path warmed up');
    const delivered = result.threads;
    if (delivered && delivered.webhooks < delivered.messages) logger.warn(delivered, 'delivery threads warmed up, but not every warm-up message was delivered in time');
    else if (delivered) logger.info(delivered, 'delivery threads warmed up');
  } catch (error) {
    logger.warn({ err: error }, 'warm-up skipped: the server starts cold');
  }
}

async function startWarmed(config: Config, logger: Logger, warm: WarmUp | null): Promise<RunningServer> {
  const location = serveLocation(config);
  const open = async (): Promise<AppContainer> => {
    try {
      return await openAppContainer(location, undefined, logger);
    } catch (error) {
      throw new Error(`cannot open the store: ${reason(error)}`);
    }
  };
  // The HTTP thread opens (and migrates) the real store before any job thread works on it:
  // threads that warm up start on the warm-up's store and move over afterwards; without a
  // warm-up they start live, so the store is opened first.
  const warmUp = config.worker ? warm?.jobThreads : undefined;
  let container: AppContainer | null = warmUp ? null : await open();
  // The job threads start before the port opens: a bad carrier configuration stops start-up.
  // If one dies later, the process goes with it (as an error in the same thread would) so a
  // supervisor restarts the whole service.
  const crashed = (error: Error): void => {
    logger.fatal({ err: error }, 'a delivery thread failed');
    logger.flush();
    process.exit(1);
  };
  const window = new DispatchWindow(defaultDispatcherOptions.maxInFlight);
  let threads: JobThreads | null = null;
  if (config.worker) {
    try {
      threads = await JobThreads.start(location, config, window, warmUp, crashed);
    } catch (error) {
      await container?.close();
      throw jobsCannotStart(error);
    }
  }
  if (warm) await runWarmUp(config, logger, warm, warmUp ? threads : null);
  if (!container) {
    try {
      container = await open();
    } catch (error) {
      await threads?.stop();
      throw error;
    }
  }
  if (threads) {
    try {
      // After the HTTP thread opened (and migrated) the store.
      await threads.goLive();
    } catch (error) {
      await threads.stop();
      await container.close();
      throw jobsCannotStart(error);
    }
    // Sends accepted here go straight to the dispatch thread, already leased to it.
    threads.connect(container, window, config.leaseMs);
  }
  // No thread is on the warm-up's store any more: it is removed before the port opens.
  await warm?.close();
  const opened = container;
  const app = await createHttp(opened, config, logger);
  const address = await listen(app, config, async () => {
    await threads?.stop();
    await opened.close();
  });
  return { container: opened, address, stop: stopper(app, config, logger, opened, threads) };
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

function stopper(app: FastifyInstance, config: Config, logger: Logger, container: AppContainer, threads: JobThreads | null): (signal: string) => Promise<void> {
  let stopping = false;
  return async (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new requests, finishing the ones in flight');
    // Keep-alive clients get an answer with Connection: close for what they still send,
    // then close() stops accepting connections and waits for in-flight requests to finish.
    await stopHttp(app, config);
    // Submits and webhook attempts in flight finish and are recorded before the store
    // closes (what is not yet attempted stays pending in the store).
    await threads?.stop();
    await container.close();
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
