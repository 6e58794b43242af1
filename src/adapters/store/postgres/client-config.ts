import type pg from 'pg';
import type { StoreLocation } from '../store-location.js';

/** How one connection to the store is made: its URL, and its schema when it has one of its own. */
export function postgresClientConfig(location: Extract<StoreLocation, { dialect: 'postgres' }>): pg.ClientConfig {
  return {
    connectionString: location.url,
    ...(location.schema ? { options: `-c search_path=${location.schema}` } : {}),
  };
}
