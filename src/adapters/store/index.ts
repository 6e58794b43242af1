/**
 * The store's entrance for the rest of the program (the composition root, src/main.ts and
 * src/composition/; and tests): where a store is, how threads share it, the one factory that
 * opens it, and the wakes other processes send through it. No dialect's own file is named
 * here: what differs by dialect is chosen inside. Everything else under adapters/store is
 * the store's own.
 */
export type { Dialect, StoreLocation } from './store-location.js';
export { asBackgroundThread, sharedByThreads, sqliteFileIn } from './store-location.js';
export { openStore } from './open-store.js';
export type { OpenOptions } from './open-store.js';
export type { SqlStore } from './sql-store.js';
export { MigrationError } from './migrate.js';
export { describeLocation, storeExists } from './store-presence.js';
export { listenForWakes } from './open-store.js';
