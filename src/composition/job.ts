/**
 * What a job thread of `serve` runs (runtime/job-thread-entry.ts wires it to the thread):
 * its own container on `serve`'s store, and the rows of the job table (jobs.ts) for its
 * thread, started in the table's order and stopped by their turns; the wakes relayed to the
 * thread, raised by its container, or sent by other processes reach the rows by channel.
 */
import type { Logger } from 'pino';
import type { Carrier, CarrierLinks } from '../ports/carrier.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import type { WakeChannel, WakeJob, WakeListener } from '../ports/wakes.js';
import { listenForWakes } from '../adapters/store/index.js';
import type { StoreLocation } from '../adapters/store/index.js';
import type { ThreadMetrics } from '../adapters/metrics/thread-metrics.js';
import type { TrafficCounter } from '../services/traffic-counter.js';
import { openAppContainer } from './container.js';
import type { AppContainer } from './container.js';
import { jobThreadLocation } from './store-locations.js';
import { trafficCounter } from './traffic.js';
import { fromOtherProcesses, jobTable, relayContainerWakes, threadsWokenBy } from './jobs.js';
import { periodOf, stopTurns } from './job-row.js';
import type { JobConfig, JobContext, JobRow, RunningPart } from './job-row.js';

export type { JobConfig } from './job-row.js';

export interface JobStart {
  job: WakeJob;
  /** `serve`'s store, as the HTTP thread opened it (the job takes the background role). */
  location: StoreLocation;
  config: JobConfig;
  logger: Logger;
  /** The thread's metrics registry, when counted (jobMetrics). */
  metrics: ThreadMetrics | null;
  /** dispatch: the buffer of the window the HTTP thread hands messages off through. */
  dispatchWindow?: SharedArrayBuffer | undefined;
  /** dispatch: told how many live carrier connections are bound, on every change (SMPP). */
  onLinks: (links: CarrierLinks) => void;
  /** A channel raised here that wakes rows of another job thread: the runtime takes it there (at most once a turn). */
  relay: (thread: WakeJob, channel: WakeChannel) => void;
}

/** A job running in its thread. */
export interface RunningJob {
  /** A channel relayed to this thread (by the HTTP thread, or the other job thread): the rows it names are woken. */
  wake(channel: WakeChannel): void;
  /** Messages the HTTP thread stored already leased to this dispatcher. */
  handOff(messages: HandedMessage[]): void;
  /** Finishes what is in flight, stores its outcomes, and closes the store. */
  stop(): Promise<void>;
  /** The dispatch thread's live carrier (null: the webhook thread). */
  carrier: Carrier | null;
}

/** The thread's metrics registry when counted (the operations listener is on); null otherwise. */
export async function jobMetrics(job: WakeJob, on: boolean): Promise<ThreadMetrics | null> {
  if (!on) return null;
  const { ThreadMetrics } = await import('../adapters/metrics/thread-metrics.js');
  return new ThreadMetrics(job);
}

interface Started {
  row: JobRow;
  part: RunningPart;
}

/** Opens the job's container and starts its thread's rows; rejects with the reason when one cannot start. */
export async function startJob(start: JobStart): Promise<RunningJob> {
  const { location, config, logger, metrics } = start;
  let container: AppContainer;
  try {
    // The HTTP thread goes first for the write lock, for up to --delivery-yield-ms.
    container = await openAppContainer(jobThreadLocation(location, config.deliveryYieldMs), undefined, {
      log: logger,
      ...(metrics ? { onWriteLockWait: (seconds: number) => metrics.writeLockWait(seconds) } : {}),
    });
  } catch (error) {
    throw new Error(`cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
  }
  let carrier: Carrier | null = null;
  let traffic: TrafficCounter | null = null;
  const context: Omit<JobContext, 'everyMs'> = {
    container,
    config,
    logger,
    metrics,
    dispatchWindow: start.dispatchWindow,
    onLinks: start.onLinks,
    traffic: () => (traffic ??= trafficCounter(container, 'dispatch', config.trafficFlushMs, logger)),
    carrier: (live) => (carrier = live),
  };
  const started: Started[] = [];
  try {
    for (const row of jobTable)
      if (row.thread === start.job && (row.runs?.(config) ?? true))
        started.push({ row, part: await row.start({ ...context, everyMs: periodOf(row, config) }) });
  } catch (error) {
    await stopRows(started);
    await container.close();
    throw error;
  }
  const wake = (channel: WakeChannel): void => {
    for (const { row, part } of started) if (row.wakes.includes(channel)) part.wake?.();
  };
  // Raised here: relayed to the other thread's rows it wakes, and this thread's woken.
  relayContainerWakes(container, start.job, (channel) => {
    for (const thread of threadsWokenBy(channel)) if (thread !== start.job) start.relay(thread, channel);
    wake(channel);
  });
  const listener = await wakesOf(start, () => wake(fromOtherProcesses[start.job]));
  return {
    carrier,
    wake,
    handOff: (messages) => {
      for (const { part } of started) part.handOff?.(messages);
      wake('messages.handed');
    },
    async stop() {
      await listener?.stop();
      await stopRows(started);
      await container.close();
    },
  };
}

/** Stops the rows by their turns; within a turn, the later started first. */
async function stopRows(started: readonly Started[]): Promise<void> {
  for (const turn of stopTurns)
    for (const { row, part } of [...started].reverse()) if (row.stops === turn) await part.stop();
}

/** On PostgreSQL (unless --notify false), the job's wakes from other processes, listened for on a connection of its own. */
function wakesOf(start: JobStart, wake: () => void): Promise<WakeListener | null> {
  if (!start.config.notify) return Promise.resolve(null);
  return listenForWakes(start.location, start.job, wake, start.logger);
}
