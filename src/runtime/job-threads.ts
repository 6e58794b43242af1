import { MessageChannel } from 'node:worker_threads';
import { handOffSends, relayContainerWakes, threadsWokenBy } from '../main.js';
import type { AppContainer, DispatchWindow, JobThreadsView, MetricsJson, StoreLocation } from '../main.js';
import { JobThread } from './job-thread.js';
import type { CarrierLinks, ConnectionState } from '../ports/carrier.js';
import type { JobThreadConfig } from './thread-protocol.js';

/** What the job threads start with. */
export interface JobThreadsStart {
  /** `serve`'s store, which the HTTP thread has opened (and migrated). */
  location: StoreLocation;
  config: JobThreadConfig;
  /** The dispatch thread's window, shared with the HTTP thread, which hands messages off through it. */
  window: DispatchWindow;
  /** Told when a thread dies without being asked to stop. */
  onCrash: (error: Error) => void;
  /** Count metrics (the operations listener is on). */
  metrics?: boolean;
}

/**
 * The two job threads of `serve` (dispatch, then webhooks), started and stopped together,
 * and connected to an application container of the HTTP thread: its wakes are relayed to
 * them, and its sends are handed off to the dispatch thread.
 */
export class JobThreads implements JobThreadsView {
  private constructor(
    private readonly dispatch: JobThread,
    private readonly webhooks: JobThread,
  ) {}

  /** Starts both threads. Rejects with the reason when one cannot start; the other is then stopped. */
  static async start({ location, config, window, onCrash, metrics = false }: JobThreadsStart): Promise<JobThreads> {
    // The job threads wake each other's rows through this channel (WakeChannel by WakeChannel).
    const between = new MessageChannel();
    let dispatch: JobThread | null = null;
    try {
      dispatch = await JobThread.start(
        { job: 'dispatch', location, config, peerWakes: between.port1, dispatchWindow: window.buffer, metrics },
        onCrash,
      );
      const webhooks = await JobThread.start(
        { job: 'webhooks', location, config, peerWakes: between.port2, metrics },
        onCrash,
      );
      return new JobThreads(dispatch, webhooks);
    } catch (error) {
      await dispatch?.stop();
      throw error;
    }
  }

  /**
   * From now on the container's wakes reach the threads whose rows their channels wake, and
   * its accepted sends go straight to the dispatch thread, already leased to it, through
   * `window` (the dispatch thread's).
   */
  connect(container: AppContainer, window: DispatchWindow, leaseMs: number): void {
    const { dispatch, webhooks } = this;
    relayContainerWakes(container, 'http', (channel) => {
      for (const thread of threadsWokenBy(channel)) (thread === 'dispatch' ? dispatch : webhooks).wake(channel);
    });
    handOffSends(container, window, leaseMs, (messages) => dispatch.handOff(messages));
  }

  /** The dispatch thread's live carrier connections, as it last told (null: none told, the simulator). */
  carrierLinks(): CarrierLinks | null {
    return this.dispatch.carrierLinks;
  }

  /** Both threads' metrics registries, as plain data (for the HTTP thread's /metrics). */
  metrics(): Promise<MetricsJson[]> {
    return Promise.all([this.dispatch.metrics(), this.webhooks.metrics()]);
  }

  /** The dispatch thread's live carrier connections now (empty: the simulator). */
  connections(): Promise<ConnectionState[]> {
    return this.dispatch.connections();
  }

  /** Finishes the submits and webhook attempts in flight; dispatching stops first, as its last outcomes may add events for the webhook thread. */
  async stop(): Promise<void> {
    await this.dispatch.stop();
    await this.webhooks.stop();
  }
}
