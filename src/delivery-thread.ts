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
  /** The dispatch thread's: the buffer of its DispatchWindow, shared with the HTTP thread, which hands it messages. */
  dispatchWindow?: SharedArrayBuffer;
}

/** What the delivery thread needs of the configuration (plain data: it is copied over). */
export type DeliveryConfig = Pick<
  Config,
  'logLevel' | 'deliveryYieldMs' | 'simDelayMs' | 'leaseMs' | 'smppConfig' | 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookConcurrency' | 'webhookRetryBaseMs'
>;

/** Messages from the HTTP thread to a delivery thread. */
export type ToDelivery = { type: 'wake' } | { type: 'handed'; messages: HandedMessage[] } | { type: 'stop' };

/** Messages from a delivery thread: started, or could not start (its end is its exit). */
export type FromDelivery = { type: 'ready' } | { type: 'failed'; message: string };

/** How long stop() waits for the thread to finish its submits and attempts in flight. */
const stopLimitMs = 30_000;

export class DeliveryThread {
  /** Set once stop() is called: the thread's exit from then on is expected. */
  private stopping = false;

  private constructor(private readonly worker: Worker) {}

  /**
   * Starts the thread and resolves once its carrier is up; rejects with the reason when it
   * cannot start (a bad SMPP configuration, an unreachable store). `onCrash` is told when the
   * thread dies later without being asked to stop.
   */
  static start(start: DeliveryStart, onCrash: (error: Error) => void): Promise<DeliveryThread> {
    const worker = new Worker(new URL('./delivery-thread-worker.js', import.meta.url), { workerData: start, transferList: [start.webhookWakes] });
    return new Promise((resolve, reject) => {
      let started = false;
      const thread = new DeliveryThread(worker);
      worker.on('message', (message: FromDelivery) => {
        if (message.type === 'ready') {
          started = true;
          resolve(thread);
        } else if (message.type === 'failed') {
          reject(new Error(message.message));
        }
      });
      worker.on('error', (error) => (started ? onCrash(error) : reject(error)));
      worker.on('exit', (code) => {
        if (!started) reject(new Error(`the delivery thread exited with code ${code} before it started`));
        else if (!thread.stopping) onCrash(new Error(`the delivery thread exited with code ${code}`));
      });
    });
  }

  /** Wakes the thread's worker: new sends were committed, or events were written. */
  wake(): void {
    const message: ToDelivery = { type: 'wake' };
    this.worker.postMessage(message);
  }

  /** Hands the dispatch thread messages stored already leased to it (see DispatchHandoff). */
  hand(messages: HandedMessage[]): void {
    const message: ToDelivery = { type: 'handed', messages };
    this.worker.postMessage(message);
  }

  /** Finishes the submits and webhook attempts in flight, stores their outcomes, and ends the thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const message: ToDelivery = { type: 'stop' };
    this.worker.postMessage(message);
    const timer = setTimeout(() => void this.worker.terminate(), stopLimitMs);
    await exited;
    clearTimeout(timer);
  }
}
