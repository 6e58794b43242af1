/** The webhook courier's options and what it works with (WebhookCourier). */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.js';
import type { EventStore } from '../ports/event-store.js';
import type { WebhookDelivery } from '../services/webhook-delivery.js';
import type { WebhookMetrics } from '../ports/metrics.js';
import type { WakeSignal } from './wake-signal.js';
import type { DestinationOptions } from './destination-slots.js';

export interface WebhookCourierOptions {
  /** Attempts in flight at once. */
  concurrency: number;
  /** Events claimed per store round trip. */
  batchSize: number;
  /** Poll interval when nothing is due (another process may add events). */
  idleMs: number;
  /**
   * After a claim that found fewer due events than it asked for, how long to let more
   * gather before claiming again (new events do not cut it short): with receipts trickling
   * in, each claim transaction then carries several events instead of two. The most it
   * adds to an event's wait for its first attempt. Default 10 ms.
   */
  gatherMs?: number;
  /** Each destination's share: by default a quarter of `concurrency`, paused after 5 unhealthy attempts in a row. */
  destinations?: Partial<DestinationOptions>;
  /**
   * Attempts in flight at once for one account's keys, whatever their destinations (default
   * half of `concurrency`), so an account with several slow receivers cannot take every
   * slot; an attempt to a destination that has proved fast is held by its destination's cap only.
   */
  accountConcurrency?: number;
}

/** What a courier works with; `options` and `wake` have defaults. */
export interface WebhookCourierSetup {
  store: EventStore;
  delivery: WebhookDelivery;
  clock: Clock;
  log: Logger;
  options?: WebhookCourierOptions;
  /** Told when this process writes events. */
  wake?: WakeSignal;
  /** Counts each attempt's outcome and duration (nothing by default). */
  metrics?: WebhookMetrics;
}

export const defaultGatherMs = 10;

export const defaultWebhookCourierOptions: WebhookCourierOptions = {
  concurrency: 64,
  batchSize: 100,
  idleMs: 250,
  gatherMs: defaultGatherMs,
};
