/**
 * The shape of a row of the job table (jobs.ts), as endpoints/endpoint.ts is the shape of an
 * endpoint: what a row declares, what its start is given and what it gives back.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Carrier, CarrierLinks } from '../ports/carrier.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import type { WakeChannel, WakeJob } from '../ports/wakes.js';
import type { ThreadMetrics } from '../adapters/metrics/thread-metrics.js';
import type { TrafficCounter } from '../services/traffic-counter.js';
import type { AppContainer } from './container.js';
import type { CarrierConfig } from './dispatch.js';

/** What the jobs need of the configuration (plain data: it is copied over to their threads). */
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

/** How often a periodic job runs: an option of `serve`, or a fixed time. */
export type Period =
  { option: 'trafficFlushMs' | 'retentionEveryMs' | 'otpWatchEveryMs' | 'iysSyncMs' } | { ms: number };

/**
 * When a job stops, in its thread: `first` (the periodic jobs, which nothing waits on), then
 * `loop` (the claim loop, which finishes what is in flight and records it), then `last`
 * (what counts the loop's last outcomes). Within a turn, the later started stops first.
 */
export type StopTurn = 'first' | 'loop' | 'last';
export const stopTurns: readonly StopTurn[] = ['first', 'loop', 'last'];

/** What a row's start is given: its thread's container and options, and its period. */
export interface JobContext {
  container: AppContainer;
  config: JobConfig;
  logger: Logger;
  /** The thread's metrics registry, when counted. */
  metrics: ThreadMetrics | null;
  /** The row's period (periodic rows), as the table declares it. */
  everyMs: number;
  /** dispatch: the buffer of the window the HTTP thread hands messages off through. */
  dispatchWindow?: SharedArrayBuffer | undefined;
  /** dispatch: told how many live carrier connections are bound, on every change (SMPP). */
  onLinks: (links: CarrierLinks) => void;
  /** dispatch: the thread's traffic counter for the console (one per thread, built on first use). */
  traffic(): TrafficCounter;
  /** dispatch: given the live carrier once built. */
  carrier(live: Carrier): void;
}

/** A row's job, running. */
export interface RunningPart {
  /** A channel the row names was raised. */
  wake?(): void;
  /** Messages handed off to this process's dispatcher (the dispatcher's row). */
  handOff?(messages: HandedMessage[]): void;
  /** Ends the job after what it has in flight. */
  stop(): Promise<void>;
}

export interface JobRow {
  name: string;
  thread: WakeJob;
  /** What a claim or a round does, and its engine: `ClaimLoop`, or rounds a period apart. */
  policy: string;
  /** The channels that wake it (WakeChannel). */
  wakes: readonly WakeChannel[];
  /** Periodic jobs: how often. */
  every?: Period;
  stops: StopTurn;
  /** Whether it runs with these options (absent: always). */
  runs?: (config: JobConfig) => boolean;
  start(context: JobContext): Promise<RunningPart> | RunningPart;
}

/** A row's period with these options (0: not periodic). */
export function periodOf(row: JobRow, config: JobConfig): number {
  if (!row.every) return 0;
  return 'ms' in row.every ? row.every.ms : config[row.every.option];
}
