/**
 * What the HTTP thread of `serve` and its two job threads say to each other. Everything here
 * crosses a worker_threads boundary, so it is plain data: structured-cloned, or shared
 * (a SharedArrayBuffer, a transferred MessagePort).
 *
 * The life of a job thread: started with a JobThreadStart; answers `ready` once its job runs
 * (or `failed`, and ends); then takes `wake` and `hand-off` until `stop`, after which it
 * finishes what is in flight and exits. With a warm-up it first runs its job on the warm-up's
 * store and answers `ready` with phase `warm-up` (or `warm-up-failed`), and moves to the real
 * store on `go-live`, answering `ready` with phase `live`.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { CarrierConfig } from '../main.js';
import type { StoreLocation } from '../adapters/store/database.js';
import type { HandedMessage } from '../ports/dispatch-handoff.js';

/**
 * The job a thread runs: `dispatch` (the dispatcher, the carriers, receipts, inbound messages
 * and the SQLite WAL checkpoints) or `webhooks` (the webhook sender).
 */
export type JobName = 'dispatch' | 'webhooks';

/** What a job thread needs of the configuration (plain data: it is copied over). */
export type JobThreadConfig = Pick<
  Config,
  'logLevel' | 'deliveryYieldMs' | 'simDelayMs' | 'leaseMs' | 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookConcurrency' | 'webhookDestinationConcurrency' | 'webhookRetryBaseMs'
> &
  CarrierConfig;

/** A throwaway store and carrier the thread runs its job on before it goes live (see warm-up.ts). */
export interface JobThreadWarmUp {
  location: StoreLocation;
  /**
   * Settings that differ from the live ones: loopback webhooks, and never the configured
   * carrier: every carrier option is replaced (so a new one must be, or this does not compile).
   */
  config: CarrierConfig & Pick<JobThreadConfig, 'simDelayMs' | 'webhookAllowPrivate'>;
  dispatchWindow?: SharedArrayBuffer;
}

/**
 * What a thread is started with: its job, the store (with the write lock the threads share)
 * and its options, and the port between the two job threads (the dispatch thread wakes the
 * webhook thread through it when it wrote events).
 */
export interface JobThreadStart {
  job: JobName;
  location: StoreLocation;
  config: JobThreadConfig;
  webhookWakes: MessagePort;
  /** The dispatch thread's: the buffer of its DispatchWindow, shared with the HTTP thread, which hands messages off to it. */
  dispatchWindow?: SharedArrayBuffer;
  /** When set, the thread first runs its job here, until it is told to go live. */
  warmUp?: JobThreadWarmUp;
}

/** Messages from the HTTP thread to a job thread. */
export type ToJobThread = { type: 'wake' } | { type: 'hand-off'; messages: HandedMessage[] } | { type: 'go-live' } | { type: 'stop' };

/**
 * Messages from a job thread: started (on the warm-up store, or live), could not start
 * (live: the thread ends; warm-up: it waits to go live all the same). Its end is its exit.
 */
export type FromJobThread = { type: 'ready'; phase: 'warm-up' | 'live' } | { type: 'warm-up-failed'; message: string } | { type: 'failed'; message: string };
