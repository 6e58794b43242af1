/**
 * The delivery workers of `serve` run in worker threads, each with a store connection of
 * its own, so HTTP requests, dispatching and webhook delivery do not queue behind each
 * other on one event loop: the `dispatch` thread runs the dispatcher, the carriers,
 * receipts and inbound messages; the `webhooks` thread delivers webhook events. The threads
 * share nothing but the store and wake signals: a commit of sends on the HTTP side wakes
 * the dispatcher at once instead of at its next poll, and a state change that wrote events
 * wakes the webhook worker.
 */
import { Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { Config } from './config.js';
import type { StoreLocation } from './adapters/store/database.js';
import type { HandedMessage } from './ports/dispatch-handoff.js';

/** Which workers a thread runs. */
export type DeliveryPart = 'dispatch' | 'webhooks';

/**
 * What a thread is started with: its part, the store (with the write lock the threads
 * share) and its options, and the port between the two delivery threads (the dispatch
 * thread wakes the webhook thread through it when it wrote events).
 */
export interface DeliveryStart {
  part: DeliveryPart;
  location: StoreLocation;
  config: DeliveryConfig;
  webhookWakes: MessagePort;
  /** The dispatch thread's: the buffer of its DispatchWindow, shared with the HTTP thread, which hands messages off to it. */
  dispatchWindow?: SharedArrayBuffer;
  /** When set, the thread first runs its part here, until it is told to go live (see cli/warm-up.ts). */
  warmUp?: DeliveryWarmUp;
}

/** A throwaway store and carrier the thread runs its part on before it goes live. */
export interface DeliveryWarmUp {
  location: StoreLocation;
  /** Settings that differ from the live ones: never the configured carrier, loopback webhooks. */
  config: Pick<DeliveryConfig, 'smppConfig' | 'simDelayMs' | 'webhookAllowPrivate'>;
  dispatchWindow?: SharedArrayBuffer;
}

/** What the delivery thread needs of the configuration (plain data: it is copied over). */
export type DeliveryConfig = Pick<
  Config,
  'logLevel' | 'deliveryYieldMs' | 'simDelayMs' | 'leaseMs' | 'smppConfig' | 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookConcurrency' | 'webhookDestinationConcurrency' | 'webhookRetryBaseMs'
>;

/** Messages from the HTTP thread to a delivery thread. */
export type ToDelivery = { type: 'wake' } | { type: 'hand-off'; messages: HandedMessage[] } | { type: 'go-live' } | { type: 'stop' };

/**
 * Messages from a delivery thread: started (on the warm-up store, or live), could not start
 * (live: the thread ends; warm-up: it waits to go live all the same). Its end is its exit.
 */
export type FromDelivery = { type: 'ready'; phase: 'warm-up' | 'live' } | { type: 'warm-up-failed'; message: string } | { type: 'failed'; message: string };

/** How long stop() waits for the thread to finish its submits and attempts in flight. */
const stopLimitMs = 30_000;

export class DeliveryThread {
  /** Set once stop() is called: the thread's exit from then on is expected. */
  private stopping = false;
  /** Set once the thread runs on the live store. */
  private live = false;
  /** Resolves when the thread has ended. */
  private readonly exited: Promise<void>;
  /** Told of the next start (`ready`) or failure of the thread; null when none is awaited. */
  private awaiting: ((outcome: FromDelivery | Error) => void) | null = null;
  /** Why the warm-up could not run in the thread, or null. */
  warmUpFailure: string | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly onCrash: (error: Error) => void,
  ) {
    worker.on('message', (message: FromDelivery) => {
      if (message.type === 'ready' && message.phase === 'live') this.live = true;
      if (message.type === 'warm-up-failed') this.warmUpFailure = message.message;
      this.settle(message);
    });
    worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('exit', (code) => this.fail(new Error(`the delivery thread exited with code ${code}${this.live ? '' : ' before it started'}`)));
  }

  private settle(outcome: FromDelivery | Error): void {
    const awaiting = this.awaiting;
    this.awaiting = null;
    awaiting?.(outcome);
  }

  private fail(error: Error): void {
    if (this.awaiting) this.settle(error);
    else if (this.live && !this.stopping) this.onCrash(error);
  }

  /** Resolves at the thread's next start; rejects when it fails or dies first. */
  private next(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.awaiting = (outcome) => {
        if (outcome instanceof Error) reject(outcome);
        else if (outcome.type === 'failed') reject(new Error(outcome.message));
        else resolve();
      };
    });
  }

  /**
   * Starts the thread and resolves once its carrier is up: on the warm-up store when
   * `start.warmUp` is set (then goLive() moves it to the real one; warmUpFailure says when it
   * could not warm up), else live. Rejects with the reason when it cannot start (a bad SMPP
   * configuration, an unreachable store). `onCrash` is told when the live thread dies later
   * without being asked to stop.
   */
  static async start(start: DeliveryStart, onCrash: (error: Error) => void): Promise<DeliveryThread> {
    const worker = new Worker(new URL('./delivery-thread-worker.js', import.meta.url), { workerData: start, transferList: [start.webhookWakes] });
    const thread = new DeliveryThread(worker, onCrash);
    await thread.next();
    return thread;
  }

  /** Ends the warm-up (its work in flight finishes first) and starts the part on the real store. */
  async goLive(): Promise<void> {
    if (this.live) return;
    const started = this.next();
    const message: ToDelivery = { type: 'go-live' };
    this.worker.postMessage(message);
    await started;
  }

  /** Wakes the thread's worker: new sends were committed, or events were written. */
  wake(): void {
    const message: ToDelivery = { type: 'wake' };
    this.worker.postMessage(message);
  }

  /** Hands off to the dispatch thread messages stored already leased to it (see DispatchHandoff). */
  handOff(messages: HandedMessage[]): void {
    const message: ToDelivery = { type: 'hand-off', messages };
    this.worker.postMessage(message);
  }

  /** Finishes the submits and webhook attempts in flight, stores their outcomes, and ends the thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    const message: ToDelivery = { type: 'stop' };
    this.worker.postMessage(message);
    const timer = setTimeout(() => void this.worker.terminate(), stopLimitMs);
    await this.exited;
    clearTimeout(timer);
  }
}
