/**
 * Wakes between processes on one PostgreSQL store: a process that commits work
 * for a job (messages to dispatch, events to send) and has no thread of its own for it says
 * so with NOTIFY; the job threads of every process LISTEN on a connection of their own and
 * claim at once instead of at their next poll. Polling stays the safety net: a wake lost
 * (the listening connection down, a NOTIFY that failed) only delays work to the next poll.
 *
 * One channel for every store in a database; the payload names the store's schema and the
 * job (`public:dispatch`), so stores in other schemas of the same database (tests, a second
 * installation) do not wake each other.
 */
import type { Logger } from 'pino';
import type { StoreLocation } from '../store-location.js';
import type { WakeJob, WakeListener } from '../../../ports/wakes.js';
import { PgListener } from './listener.js';

export const wakeChannel = 'haberci_wake';

/**
 * LISTENs for wakes of one job on a connection of its own, and calls `onWake` for each.
 * When the connection drops it connects again with a growing delay, and calls `onWake` once
 * connected (wakes sent while it was away are lost; the job looks in the store at once).
 */
export class PgWakeListener implements WakeListener {
  private readonly listener: PgListener;

  constructor(
    location: Extract<StoreLocation, { dialect: 'postgres' }>,
    job: WakeJob,
    onWake: () => void,
    log: Logger,
  ) {
    this.listener = new PgListener(
      location,
      wakeChannel,
      {
        heard: (topic) => {
          if (topic === job) onWake();
        },
        // Wakes sent while it was away are lost: the job looks in the store at once.
        up: (again) => {
          if (again) onWake();
        },
        down: () => undefined,
      },
      'wake listener',
      log.child({ job }),
    );
  }

  /** Starts listening; resolves once listening or after the first failed try (it keeps trying). */
  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }
}
