/**
 * The delivery workers of `serve` (dispatcher, carriers, receipts, inbound messages and
 * webhook delivery) run in a worker thread of their own, with their own store connection,
 * so HTTP requests and delivery each have a core. The two threads share nothing but the
 * store and two wake signals: a commit of sends on the HTTP side wakes the dispatcher at
 * once instead of at its next poll.
 */
import { Worker } from 'node:worker_threads';
import type { Config } from './config.js';
import type { Runtime } from './main.js';
import type { StoreLocation } from './adapters/store/database.js';

/** What the thread is started with: the store (with the write lock the threads share) and its options. */
export interface DeliveryStart {
  location: StoreLocation;
  config: DeliveryConfig;
}

/** What the delivery thread needs of the configuration (plain data: it is copied over). */
export type DeliveryConfig = Pick<
  Config,
  'logLevel' | 'simDelayMs' | 'leaseMs' | 'smppConfig' | 'webhookAllowPrivate' | 'webhookTimeoutMs' | 'webhookConcurrency' | 'webhookRetryBaseMs'
>;

/** Messages from the HTTP thread to the delivery thread. */
export type ToDelivery = { type: 'wake'; signal: 'dispatch' | 'webhook' } | { type: 'stop' };

/** Messages from the delivery thread: started, could not start, or stopped cleanly. */
export type FromDelivery = { type: 'ready' } | { type: 'failed'; message: string } | { type: 'stopped' };

/** How long stop() waits for the thread to finish its submits and attempts in flight. */
const stopLimitMs = 30_000;

export class DeliveryThread {
  private constructor(private readonly worker: Worker) {}

  /**
   * Starts the thread and resolves once its carrier is up; rejects with the reason when it
   * cannot start (a bad SMPP configuration, an unreachable store). `onCrash` is told when the
   * thread dies later without being asked to stop.
   */
  static start(runtime: Runtime, start: DeliveryStart, onCrash: (error: Error) => void): Promise<DeliveryThread> {
    const worker = new Worker(new URL('./delivery-thread-worker.js', import.meta.url), { workerData: start });
    const post = (message: ToDelivery): void => worker.postMessage(message);
    return new Promise((resolve, reject) => {
      let started = false;
      let stopping = false;
      const thread = new DeliveryThread(worker);
      worker.on('message', (message: FromDelivery) => {
        if (message.type === 'ready') {
          started = true;
          runtime.dispatchWake.relayTo(() => post({ type: 'wake', signal: 'dispatch' }));
          runtime.webhookWake.relayTo(() => post({ type: 'wake', signal: 'webhook' }));
          resolve(thread);
        } else if (message.type === 'failed') {
          reject(new Error(message.message));
        } else {
          stopping = true;
        }
      });
      worker.on('error', (error) => (started ? onCrash(error) : reject(error)));
      worker.on('exit', (code) => {
        if (!started) reject(new Error(`the delivery thread exited with code ${code} before it started`));
        else if (!stopping) onCrash(new Error(`the delivery thread exited with code ${code}`));
      });
    });
  }

  /** Finishes the submits and webhook attempts in flight, stores their outcomes, and ends the thread. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const message: ToDelivery = { type: 'stop' };
    this.worker.postMessage(message);
    const timer = setTimeout(() => void this.worker.terminate(), stopLimitMs);
    await exited;
    clearTimeout(timer);
  }
}
