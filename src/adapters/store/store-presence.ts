import { sqliteStoreExists } from './sqlite/store-exists.js';
import { postgresStoreExists } from './postgres/store-exists.js';
import type { StoreLocation } from './store-location.js';

/**
 * Whether a store is there: its migration table exists (in the SQLite file, or in the
 * PostgreSQL schema that unqualified names resolve to, where `migrate` keeps it). Looks
 * without writing anything: no file, folder or table is made when there is none.
 */
export async function storeExists(location: StoreLocation): Promise<boolean> {
  return location.dialect === 'sqlite'
    ? sqliteStoreExists(location.file)
    : postgresStoreExists(location.url, location.schema);
}

/** Where a store is, for a message: a PostgreSQL URL without its password. */
export function describeLocation(location: StoreLocation): string {
  if (location.dialect === 'sqlite') return location.file;
  try {
    const url = new URL(location.url);
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'the PostgreSQL database of --database';
  }
}
