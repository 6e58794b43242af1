/**
 * The lookup caches' signal of other connections' commits on PostgreSQL: the
 * triggers of migration 0021 NOTIFY `haberci_lookups` with `schema:lookups` when a commit
 * wrote accounts (other than a balance), api_keys or sender_ids, and `schema:balances` when
 * it changed a balance; each process LISTENs on a connection of its own and counts what it
 * hears, as SQLite's `lookup_version` counts (lookup-caches.ts reads both alike).
 *
 * While the listening connection is not up (not yet connected, lost, connecting again) the
 * counters move at every reading, so the caches keep nothing and every lookup goes to the
 * store: a change made meanwhile cannot be missed. Once listening again, the counters move
 * once more, emptying what was cached before. What is left is the time a notification takes
 * to arrive after its commit (docs/decisions.md, "Cluster").
 */
import type { Logger } from 'pino';
import type { ExternalChanges } from '../connection.js';
import type { StoreLocation } from '../store-location.js';
import { PgListener } from './listener.js';

export const lookupsChannel = 'haberci_lookups';

export class PgLookupChanges {
  private lookups = 0;
  private balances = 0;
  private listening = false;
  private readonly listener: PgListener;

  constructor(location: Extract<StoreLocation, { dialect: 'postgres' }>, log: Logger) {
    this.listener = new PgListener(
      location,
      lookupsChannel,
      {
        heard: (topic) => {
          if (topic === 'balances') this.balances++;
          else this.lookups++;
        },
        up: () => {
          this.listening = true;
          this.moved();
        },
        down: () => {
          this.listening = false;
          this.moved();
        },
      },
      'lookup cache listener',
      log,
    );
  }

  /** The counters; the first reading starts listening (after the store's migrations ran). */
  read(): ExternalChanges {
    if (!this.listening) {
      void this.listener.start();
      this.moved();
    }
    return { lookups: this.lookups, balances: this.balances };
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private moved(): void {
    this.lookups++;
    this.balances++;
  }
}
