/**
 * The job table: every background job of `serve`, as the endpoint table is every request.
 * A row names the job, the thread it runs in, its policy (what a claim or a round does, on
 * which engine), the wake channels it is woken by, how often it runs when periodic, and when
 * it stops. composition/job.ts starts a thread's rows and stops them; the runtime relays each
 * channel to the threads whose rows it wakes (`threadsWokenBy`). Nothing else starts a job
 * (`npm run walls`: `jobs-start-from-the-table`).
 */
import type { Logger } from 'pino';
import { bothMessageMetrics } from '../ports/metrics.js';
import type { WakeChannel, WakeJob } from '../ports/wakes.js';
import { CountDeriver, defaultCountDeriverOptions } from '../jobs/count-deriver.js';
import { OtpWatch, defaultOtpWatchOptions } from '../jobs/otp-watch.js';
import { RetentionSweeper } from '../jobs/retention-sweeper.js';
import type { AppContainer } from './container.js';
import { dispatchWindow, startDispatcher } from './dispatch.js';
import { startIysSync } from './iys-sync.js';
import { startWebhooks } from './webhooks.js';
import type { JobRow, RunningPart } from './job-row.js';

/**
 * How often the dispatch thread checkpoints the WAL: at full load some hundreds of pages
 * are written in this time, so each checkpoint stays short and the WAL file small.
 */
const checkpointEveryMs = 200;

/** The table, in the order each thread starts its rows. */
export const jobTable: readonly JobRow[] = [
  {
    name: 'dispatcher',
    thread: 'dispatch',
    policy: 'ClaimLoop: Dispatcher (claims messages, submits them to the carrier, records receipts)',
    wakes: ['messages.accepted'],
    stops: 'loop',
    async start({ container, config, logger, metrics, onLinks, ...context }) {
      const window = context.dispatchWindow ? dispatchWindow(context.dispatchWindow) : undefined;
      const traffic = context.traffic();
      const dispatcher = await startDispatcher({
        container,
        config,
        logger,
        options: { idleMs: config.dispatchPollMs },
        ...(window ? { window } : {}),
        onLinks,
        observers: {
          messages: metrics ? bothMessageMetrics(metrics, traffic) : traffic,
          ...(metrics ? { carrierMetrics: metrics } : {}),
          carrier: context.carrier,
        },
      });
      return {
        wake: () => container.dispatchWake.notify(),
        handOff: (messages) => dispatcher.handOff(messages),
        stop: () => dispatcher.stop(),
      };
    },
  },
  {
    // The console's traffic per minute: counted by the dispatcher, written a row a minute.
    name: 'traffic',
    thread: 'dispatch',
    policy: "TrafficCounter: writes the thread's counts of messages for the console",
    wakes: [],
    every: { option: 'trafficFlushMs' },
    stops: 'last',
    start({ traffic }) {
      const counter = traffic();
      counter.start();
      return { stop: () => counter.stop() };
    },
  },
  {
    // After the dispatcher, whose last outcomes queue sums too: its last round derives them.
    name: 'deriver',
    thread: 'dispatch',
    policy: "CountDeriver: adds the queued sums to the panel's rollups, a round after a wake",
    wakes: ['messages.accepted', 'messages.handed', 'outcomes.written'],
    every: { ms: defaultCountDeriverOptions.everyMs },
    stops: 'last',
    start({ container, logger, everyMs }) {
      const deriver = new CountDeriver(container.store.derived, container.clock, logger, {
        ...defaultCountDeriverOptions,
        everyMs,
      });
      deriver.start();
      return { wake: () => deriver.wake(), stop: () => deriver.stop() };
    },
  },
  {
    name: 'retention',
    thread: 'dispatch',
    policy: 'RetentionSweeper: removes finished data older than --retention-days, a batch at a time',
    wakes: [],
    every: { option: 'retentionEveryMs' },
    stops: 'first',
    runs: (config) => config.retentionDays > 0,
    start({ container, config, logger, everyMs }) {
      const retention = new RetentionSweeper(container.store.retention, container.clock, logger, {
        days: config.retentionDays,
        batch: config.retentionBatch,
        pauseMs: config.retentionPauseMs,
        everyMs,
        partitionIds: config.retentionPartitionIds,
      });
      retention.start();
      return { stop: () => retention.stop() };
    },
  },
  {
    name: 'otp-watch',
    thread: 'dispatch',
    policy: 'OtpWatch: holds the destination prefixes of suspected SMS pumping',
    wakes: [],
    every: { option: 'otpWatchEveryMs' },
    stops: 'first',
    start({ container, config, logger, everyMs }) {
      const watch = new OtpWatch(container.store, container.clock, logger, {
        ...defaultOtpWatchOptions,
        everyMs,
        graceMs: config.otpWatchGraceMs,
      });
      watch.start();
      return { stop: () => watch.stop() };
    },
  },
  {
    name: 'iys-sync',
    thread: 'dispatch',
    policy: 'IysSync: pushes consents to İYS and pulls its changes, for the accounts set up',
    wakes: [],
    every: { option: 'iysSyncMs' },
    stops: 'first',
    start({ container, config, logger, everyMs }) {
      const sync = startIysSync(container, { ...config, iysSyncMs: everyMs }, logger);
      return { stop: () => sync.stop() };
    },
  },
  {
    // No connection of `serve` checkpoints in its commits: this job does, outside the write lock.
    name: 'wal-checkpoint',
    thread: 'dispatch',
    policy: 'copies the SQLite WAL back into the database file (nothing on PostgreSQL)',
    wakes: [],
    every: { ms: checkpointEveryMs },
    stops: 'first',
    start: ({ container, logger, everyMs }) => checkpointEvery(everyMs, container, logger),
  },
  {
    name: 'webhook-courier',
    thread: 'webhooks',
    policy: 'ClaimLoop: WebhookCourier (claims events, signs and POSTs them, records each attempt)',
    wakes: ['events.written', 'outcomes.written'],
    stops: 'loop',
    start({ container, config, logger, metrics }) {
      const webhooks = startWebhooks({ container, config, logger, metrics: metrics ?? undefined });
      return { wake: () => container.webhookWake.notify(), stop: () => webhooks.stop() };
    },
  },
];

/**
 * What a container's two wakes raise, by the thread that runs it: its sends committed
 * (`dispatchWake`) and its events written (`webhookWake`). Absent: the wake is the thread's
 * own claim loop's, not relayed.
 */
export const containerWakes: Record<'http' | WakeJob, { sends?: WakeChannel; events?: WakeChannel }> = {
  http: { sends: 'messages.accepted', events: 'events.written' },
  dispatch: { events: 'outcomes.written' },
  webhooks: {},
};

/**
 * What another process's wake (NOTIFY, by thread) raises in the thread that listens for it:
 * the channel the HTTP thread of a process without job threads relays to that thread.
 */
export const fromOtherProcesses: Record<WakeJob, WakeChannel> = {
  dispatch: 'messages.accepted',
  webhooks: 'events.written',
};

const wokenThreads = new Map<WakeChannel, readonly WakeJob[]>();
for (const row of jobTable)
  for (const channel of row.wakes)
    wokenThreads.set(channel, [...new Set([...(wokenThreads.get(channel) ?? []), row.thread])]);

/** The job threads with a row woken by `channel`, where the runtime relays it. */
export function threadsWokenBy(channel: WakeChannel): readonly WakeJob[] {
  return wokenThreads.get(channel) ?? [];
}

/** From now on the container's wakes raise their channels (containerWakes) through `raise`, at most once a turn each. */
export function relayContainerWakes(
  container: AppContainer,
  thread: 'http' | WakeJob,
  raise: (channel: WakeChannel) => void,
): void {
  const { sends, events } = containerWakes[thread];
  if (sends) container.dispatchWake.relayTo(() => raise(sends));
  if (events) container.webhookWake.relayTo(() => raise(events));
}

function checkpointEvery(ms: number, container: AppContainer, logger: Logger): RunningPart {
  const timer = setInterval(() => {
    try {
      container.checkpoint();
    } catch (error) {
      // A checkpoint that did not happen now happens at the next tick; it must not end the thread.
      logger.warn({ err: error }, 'WAL checkpoint failed; trying again shortly');
    }
  }, ms);
  return { stop: async () => clearInterval(timer) };
}
