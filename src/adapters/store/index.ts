/**
 * The store's entrance for the rest of the program (the composition root, the CLI, the
 * thread entry files, tests): where a store is, how threads share it, and the one factory
 * that opens it. Everything else under adapters/store is the store's own.
 */
export type { Dialect, StoreLocation } from './store-location.js';
export { asBackgroundThread, sharedByThreads, sqliteFileIn } from './store-location.js';
export { openStore } from './open-store.js';
export type { OpenOptions } from './open-store.js';
export type { SqlStore } from './sql-store.js';
export { MigrationError } from './migrate.js';
export { describeLocation, storeExists } from './store-presence.js';
export { observeWriteLockWaits } from './sqlite/thread-write-lock.js';
export { PgWakeListener } from './postgres/wake-channel.js';
export type { WakeJob } from './postgres/wake-channel.js';
