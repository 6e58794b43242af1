/**
 * A job thread's entry point (worker_threads; see job-thread.ts): the dispatch or webhook
 * job of `serve`, on a store connection of its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createLogger, openAppContainer, startDispatcher, startWebhooks } from '../main.js';
import type { AppContainer } from '../main.js';
import type { Dispatcher } from '../jobs/dispatcher.js';
import type { Ask, FromJobThread, JobName, JobThreadConfig, JobThreadStart, ToJobThread } from './thread-protocol.js';
import { PgWakeListener, asBackgroundThread, observeWriteLockWaits } from '../adapters/store/index.js';
import type { ThreadMetrics } from '../adapters/metrics/thread-metrics.js';
import type { Carrier } from '../ports/carrier.js';
import { bothMessageMetrics } from '../ports/metrics.js';
import { TrafficCounter } from '../services/traffic-counter.js';
import { trafficSource } from './traffic-source.js';
import type { StoreLocation } from '../adapters/store/index.js';
import { DispatchWindow } from '../jobs/dispatch-window.js';
import { defaultDispatcherOptions } from '../jobs/dispatcher.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import { RetentionSweeper } from '../jobs/retention-sweeper.js';

/**
 * How often the dispatch thread checkpoints the WAL: at full load some hundreds of pages
 * are written in this time, so each checkpoint stays short and the WAL file small.
 */
const checkpointEveryMs = 200;

/** The job running. */
interface Running {
  /** New work was committed (by this process's HTTP thread, or events by the dispatch thread). */
  wake(): void;
  /** Messages the HTTP thread stored already leased to this dispatcher. */
  handOff(messages: HandedMessage[]): void;
  /** Finishes what is in flight, stores its outcomes, and closes the store. */
  stop(): Promise<void>;
  /** The dispatch thread's live carrier (null: the webhook thread). */
  carrier: Carrier | null;
}

async function startJob(
  job: JobName,
  location: StoreLocation,
  config: JobThreadConfig,
  logger: Logger,
  webhookWakes: MessagePort,
  dispatchWindow: SharedArrayBuffer | undefined,
  post: (message: FromJobThread) => void,
  metrics: ThreadMetrics | null,
): Promise<Running> {
  // The HTTP thread goes first for the write lock, for up to --delivery-yield-ms.
  const background = asBackgroundThread(location, config.deliveryYieldMs);
  let container: AppContainer;
  try {
    container = await openAppContainer(background, undefined, logger);
  } catch (error) {
    throw new Error(`cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (job === 'dispatch') {
    const window = dispatchWindow
      ? new DispatchWindow(defaultDispatcherOptions.maxInFlight, dispatchWindow)
      : undefined;
    let dispatcher: Dispatcher;
    let carrier: Carrier | null = null;
    // The console's traffic per minute: counted here, written a row a minute.
    const traffic = new TrafficCounter(
      container.store.monitoring,
      trafficSource('dispatch'),
      Date.now,
      { flushMs: config.trafficFlushMs, keepMinutes: 7 * 24 * 60 },
      (error) => logger.warn({ err: error }, 'traffic counts not written'),
    );
    try {
      dispatcher = await startDispatcher(
        container,
        config,
        logger,
        { idleMs: config.dispatchPollMs },
        window,
        (links) => post({ type: 'carrier-links', ...links }),
        {
          messages: metrics ? bothMessageMetrics(metrics, traffic) : traffic,
          ...(metrics ? { carrierMetrics: metrics } : {}),
          carrier: (live) => (carrier = live),
        },
      );
    } catch (error) {
      await container.close();
      throw error;
    }
    traffic.start();
    // Events written here are delivered by the webhook thread.
    container.webhookWake.relayTo(() => webhookWakes.postMessage(null));
    // No connection of `serve` checkpoints in its commits (checkpoints: 'manual'): this
    // thread does, off the HTTP thread and outside the write lock.
    const checkpoints = setInterval(() => {
      try {
        container.checkpoint();
      } catch (error) {
        // A checkpoint that did not happen now happens at the next tick; it must not end the thread.
        logger.warn({ err: error }, 'WAL checkpoint failed; trying again shortly');
      }
    }, checkpointEveryMs);
    // Messages other processes commit (PostgreSQL): woken by their NOTIFY.
    const listener = await listenForWakes(location, config, 'dispatch', () => container.dispatchWake.notify(), logger);
    // Retention (--retention-days) sweeps from this thread, off the HTTP thread.
    const retention =
      config.retentionDays > 0
        ? new RetentionSweeper(container.store.retention, container.clock, logger, {
            days: config.retentionDays,
            batch: config.retentionBatch,
            pauseMs: config.retentionPauseMs,
            everyMs: config.retentionEveryMs,
            partitionIds: config.retentionPartitionIds,
          })
        : null;
    retention?.start();
    return {
      carrier,
      wake: () => container.dispatchWake.notify(),
      handOff: (messages) => dispatcher.handOff(messages),
      async stop() {
        clearInterval(checkpoints);
        await listener?.stop();
        await retention?.stop();
        await dispatcher.stop();
        await traffic.stop();
        await container.close();
      },
    };
  }
  const webhooks = startWebhooks(container, config, logger, {}, metrics ?? undefined);
  const listener = await listenForWakes(location, config, 'webhooks', () => container.webhookWake.notify(), logger);
  // The dispatch thread's wakes: it wrote events.
  webhookWakes.on('message', () => container.webhookWake.notify());
  return {
    carrier: null,
    wake: () => container.webhookWake.notify(),
    handOff: () => undefined,
    async stop() {
      await listener?.stop();
      await webhooks.stop();
      await container.close();
    },
  };
}

/** On PostgreSQL (unless --notify false), the job's wakes from other processes, listened for on a connection of its own. */
async function listenForWakes(
  location: StoreLocation,
  config: JobThreadConfig,
  job: JobName,
  wake: () => void,
  logger: Logger,
): Promise<PgWakeListener | null> {
  if (location.dialect !== 'postgres' || !config.notify) return null;
  const listener = new PgWakeListener(location, job, wake, logger);
  await listener.start();
  return listener;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The thread's metrics, when counted: its registry, and its SQLite write-lock waits timed into it. */
async function threadMetrics(job: JobName, on: boolean): Promise<ThreadMetrics | null> {
  if (!on) return null;
  const { ThreadMetrics } = await import('../adapters/metrics/thread-metrics.js');
  const metrics = new ThreadMetrics(job);
  observeWriteLockWaits((seconds) => metrics.writeLockWait(seconds));
  return metrics;
}

async function answer(
  id: number,
  what: Ask,
  running: Running | null,
  metrics: ThreadMetrics | null,
): Promise<FromJobThread> {
  if (what === 'metrics') return { type: 'answer', id, metrics: metrics ? await metrics.json() : [] };
  return { type: 'answer', id, connections: running?.carrier?.connections?.() ?? [] };
}

async function run(
  port: MessagePort,
  { job, location, config, webhookWakes, dispatchWindow, metrics: counted }: JobThreadStart,
): Promise<void> {
  const post = (message: FromJobThread): void => port.postMessage(message);
  const logger = createLogger(config.logLevel);
  const metrics = await threadMetrics(job, counted === true);
  let running: Running | null = null;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const end = async (): Promise<void> => {
    // Submits or webhook attempts in flight finish and their outcomes are stored; what
    // is left stays in the store.
    const current = running;
    running = null;
    await current?.stop();
    metrics?.close();
    logger.flush();
    webhookWakes.close();
    port.close();
  };
  port.on('message', (message: ToJobThread) => {
    if (message.type === 'wake') running?.wake();
    else if (message.type === 'hand-off') running?.handOff(message.messages);
    else if (message.type === 'ask')
      void answer(message.id, message.what, running, metrics).then(post, () =>
        post({ type: 'answer', id: message.id }),
      );
    else stop();
  });
  try {
    running = await startJob(job, location, config, logger, webhookWakes, dispatchWindow, post, metrics);
  } catch (error) {
    post({ type: 'failed', message: reason(error) });
    await end();
    return;
  }
  post({ type: 'ready' });
  await stopped;
  await end();
}

if (parentPort) void run(parentPort, workerData as JobThreadStart);
