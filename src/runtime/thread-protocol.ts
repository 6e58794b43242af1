/**
 * What the HTTP thread of `serve` and its two job threads say to each other. Everything here
 * crosses a worker_threads boundary, so it is plain data: structured-cloned, or shared
 * (a SharedArrayBuffer, a transferred MessagePort).
 *
 * The life of a job thread: started with a JobThreadStart; answers `ready` once its job runs
 * (or `failed`, and ends); then takes `wake` (by channel) and `hand-off` until `stop`, after which it
 * finishes what is in flight and exits.
 */
import type { MessagePort } from 'node:worker_threads';
import type { JobConfig, MetricsJson, StoreLocation } from '../main.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';
import type { CarrierLinks, ConnectionState } from '../ports/carrier.js';
import type { WakeChannel, WakeJob } from '../ports/wakes.js';

/**
 * The job thread: `dispatch` (the dispatcher, the carriers, receipts, inbound messages and
 * the jobs beside it) or `webhooks` (the webhook courier); its rows are the job table's.
 */
export type JobName = WakeJob;

/** What a job thread needs of the configuration (plain data: it is copied over). */
export type JobThreadConfig = JobConfig;

/**
 * What a thread is started with: its job, the store (with the write lock the threads share)
 * and its options, and the port between the two job threads (the wake channels one raises
 * for the other's rows: the dispatch thread's `outcomes.written` for the webhook courier).
 */
export interface JobThreadStart {
  job: JobName;
  location: StoreLocation;
  config: JobThreadConfig;
  peerWakes: MessagePort;
  /** The dispatch thread's: the buffer of its DispatchWindow, shared with the HTTP thread, which hands messages off to it. */
  dispatchWindow?: SharedArrayBuffer;
  /** Count metrics (the operations listener is on): the thread answers `metrics` asks with its registry. */
  metrics?: boolean;
}

/**
 * What the HTTP thread asks a job thread, answered by an `answer` of the same id: its
 * metrics registry as plain data (empty when it counts none), or its live carrier's
 * connections (empty when it holds none).
 */
export type Ask = 'metrics' | 'connections';

/** Messages from the HTTP thread to a job thread. */
export type ToJobThread =
  | { type: 'wake'; channel: WakeChannel }
  | { type: 'hand-off'; messages: HandedMessage[] }
  | { type: 'stop' }
  | { type: 'ask'; id: number; what: Ask };

/**
 * Messages from a job thread: its job runs, or could not start (then the thread ends). Its
 * end is its exit. The dispatch thread also tells, from its start on, how many connections
 * of its live carrier are bound, on every change (SMPP only: the HTTP thread's readiness).
 */
export type FromJobThread =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | ({ type: 'carrier-links' } & CarrierLinks)
  | { type: 'answer'; id: number; metrics?: MetricsJson; connections?: ConnectionState[] };
