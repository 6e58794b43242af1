/**
 * What a job thread of `serve` runs (runtime/job-thread-entry.ts wires it to the thread):
 * its own container on `serve`'s store, and its job: the dispatcher with its traffic counts,
 * retention, the deriver of the panel's rollups and the wakes of other processes; or the
 * webhook courier.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Carrier, CarrierLinks } from '../ports/carrier.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import { bothMessageMetrics } from '../ports/metrics.js';
import type { WakeJob, WakeListener } from '../ports/wakes.js';
import type { Dispatcher } from '../jobs/dispatcher.js';
import { RetentionSweeper } from '../jobs/retention-sweeper.js';
import { OtpWatch, defaultOtpWatchOptions } from '../jobs/otp-watch.js';
import { CountDeriver } from '../jobs/count-deriver.js';
import { listenForWakes } from '../adapters/store/index.js';
import type { StoreLocation } from '../adapters/store/index.js';
import type { ThreadMetrics } from '../adapters/metrics/thread-metrics.js';
import { openAppContainer } from './container.js';
import type { AppContainer } from './container.js';
import { jobThreadLocation } from './store-locations.js';
import { dispatchWindow, startDispatcher } from './dispatch.js';
import type { CarrierConfig } from './dispatch.js';
import { startWebhooks } from './webhooks.js';
import { trafficCounter } from './traffic.js';
import { startIysSync } from './iys-sync.js';

/** What a job needs of the configuration (plain data: it is copied over to its thread). */
export type JobConfig = Pick<
  Config,
  | 'logLevel'
  | 'trafficFlushMs'
  | 'deliveryYieldMs'
  | 'simDelayMs'
  | 'leaseMs'
  | 'webhookAllowPrivate'
  | 'webhookTimeoutMs'
  | 'webhookConcurrency'
  | 'webhookDestinationConcurrency'
  | 'webhookRetryBaseMs'
  | 'dispatchPollMs'
  | 'notify'
  | 'retentionDays'
  | 'retentionBatch'
  | 'retentionPauseMs'
  | 'retentionEveryMs'
  | 'retentionPartitionIds'
  | 'otpWatchEveryMs'
  | 'otpWatchGraceMs'
  | 'iysSyncMs'
  | 'iysRetryMaxMs'
  | 'iysTimeoutMs'
  | 'secretKeyFile'
  | 'data'
> &
  CarrierConfig;

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
  /** dispatch: events were written (the webhook thread is to be woken); at most once a turn. */
  eventsWritten: () => void;
}

/** A job running in its thread. */
export interface RunningJob {
  /** New work was committed (by this process's HTTP thread, or events by the dispatch thread). */
  wake(): void;
  /** Messages the HTTP thread stored already leased to this dispatcher. */
  handOff(messages: HandedMessage[]): void;
  /** Copies the SQLite WAL back into the database file (the dispatch thread, on a timer). */
  checkpoint(): void;
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

/** Opens the job's container and starts its job; rejects with the reason when it cannot. */
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
  return start.job === 'dispatch' ? runDispatch(container, start) : runWebhooks(container, start);
}

async function runDispatch(container: AppContainer, start: JobStart): Promise<RunningJob> {
  const { config, logger, metrics } = start;
  const window = start.dispatchWindow ? dispatchWindow(start.dispatchWindow) : undefined;
  let dispatcher: Dispatcher;
  let carrier: Carrier | null = null;
  // The console's traffic per minute: counted here, written a row a minute.
  const traffic = trafficCounter(container, 'dispatch', config.trafficFlushMs, logger);
  try {
    dispatcher = await startDispatcher({
      container,
      config,
      logger,
      options: { idleMs: config.dispatchPollMs },
      ...(window ? { window } : {}),
      onLinks: start.onLinks,
      observers: {
        messages: metrics ? bothMessageMetrics(metrics, traffic) : traffic,
        ...(metrics ? { carrierMetrics: metrics } : {}),
        carrier: (live) => (carrier = live),
      },
    });
  } catch (error) {
    await container.close();
    throw error;
  }
  traffic.start();
  // The panel's rollups, derived after the commits that queued their sums: woken by this
  // process's sends (a wake, a hand-off), its receipts and rejects (they write events), and
  // other processes' sends (their NOTIFY).
  const deriver = new CountDeriver(container.store.derived, container.clock, logger);
  deriver.start();
  // Events written here are delivered by the webhook thread.
  container.webhookWake.relayTo(() => {
    start.eventsWritten();
    deriver.wake();
  });
  // Messages other processes commit (PostgreSQL): woken by their NOTIFY.
  const listener = await wakesOf(start, () => {
    container.dispatchWake.notify();
    deriver.wake();
  });
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
  // The OTP conversion watch: from the rows written, off the HTTP thread.
  const otpWatch = new OtpWatch(container.store, container.clock, logger, {
    ...defaultOtpWatchOptions,
    everyMs: config.otpWatchEveryMs,
    graceMs: config.otpWatchGraceMs,
  });
  otpWatch.start();
  // The sync with İYS of the accounts configured with an address, off the HTTP thread too.
  const iys = startIysSync(container, config, logger);
  return {
    carrier,
    wake: () => {
      container.dispatchWake.notify();
      deriver.wake();
    },
    handOff: (messages) => {
      dispatcher.handOff(messages);
      deriver.wake();
    },
    checkpoint: () => container.checkpoint(),
    async stop() {
      await listener?.stop();
      await retention?.stop();
      await otpWatch.stop();
      await iys.stop();
      await dispatcher.stop();
      // After the dispatcher, whose last outcomes queue sums too: one last round derives them.
      await deriver.stop();
      await traffic.stop();
      await container.close();
    },
  };
}

async function runWebhooks(container: AppContainer, start: JobStart): Promise<RunningJob> {
  const { config, logger, metrics } = start;
  const webhooks = startWebhooks({ container, config, logger, metrics: metrics ?? undefined });
  const listener = await wakesOf(start, () => container.webhookWake.notify());
  return {
    carrier: null,
    wake: () => container.webhookWake.notify(),
    handOff: () => undefined,
    checkpoint: () => container.checkpoint(),
    async stop() {
      await listener?.stop();
      await webhooks.stop();
      await container.close();
    },
  };
}

/** On PostgreSQL (unless --notify false), the job's wakes from other processes, listened for on a connection of its own. */
function wakesOf(start: JobStart, wake: () => void): Promise<WakeListener | null> {
  if (!start.config.notify) return Promise.resolve(null);
  return listenForWakes(start.location, start.job, wake, start.logger);
}
