/**
 * What the store suites of test/adapters/store/ (one file per store part) share: a fresh, migrated
 * store for each describe() on a dialect, ways to open more, and small builders.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { migrate } from '../../src/adapters/store/migrate.js';
import { openConnection, storeOn } from '../../src/adapters/store/open-store.js';
import type { StoreConnection } from '../../src/adapters/store/connection.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import type { SqlStore } from '../../src/adapters/store/sql-store.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import type { Account, AccountInput } from '../../src/ports/accounts.js';
import type { TestDialect } from './dialects.js';

export const now = Date.UTC(2026, 2, 15, 9, 0, 0);

export function accountInput(name: string, balanceMain = 0, balanceInternational = 0): AccountInput {
  return {
    name,
    balanceMain,
    balanceInternational,
    perMinuteLimit: 0,
    otpBrand: '',
    ipAllow: [],
    globalSending: false,
  };
}

export function isAccount(value: Account | 'insufficient' | null): value is Account {
  return value !== null && value !== 'insufficient';
}

export interface StoreSuite {
  /** The suite's store, migrated in before(). */
  readonly store: SqlStore;
  readonly handle: StoreConnection;
  readonly location: StoreLocation;
  /** A fresh, empty store: a file for SQLite (so that it can be opened twice), a schema for PostgreSQL. */
  freshLocation(d: TestDialect): Promise<StoreLocation>;
  /** A connection closed after the suite. */
  open(at: StoreLocation): StoreConnection;
  /** The tables of this store (this schema on PostgreSQL), less Kysely's own. */
  storeTables(h: StoreConnection): Promise<string[]>;
  ledger(
    accountId: number,
  ): Promise<{ bucket: string; delta: number; balance_after: number; reason: string; reference: string | null }[]>;
  /** A new key of the account, with the default settings; its id. */
  newKey(accountId: number): Promise<number>;
}

/** Registers the before() and after() of one describe() on `dialect`; read the store in tests or hooks. */
export function storeSuite(dialect: TestDialect): StoreSuite {
  const dirs: string[] = [];
  const handles: StoreConnection[] = [];
  let handle: StoreConnection | null = null;
  let store: SqlStore | null = null;
  let location: StoreLocation | null = null;
  let hashes = 0;

  const ready = <T>(value: T | null): T => {
    if (value === null) throw new Error('the store is opened in before()');
    return value;
  };

  const suite: StoreSuite = {
    get store() {
      return ready(store);
    },
    get handle() {
      return ready(handle);
    },
    get location() {
      return ready(location);
    },
    async freshLocation(d) {
      if (d.name === 'postgres') return d.location();
      const dir = mkdtempSync(join(tmpdir(), 'haberci-store-'));
      dirs.push(dir);
      return { dialect: 'sqlite', file: join(dir, 'store.sqlite') };
    },
    open(at) {
      const h = openConnection(at);
      handles.push(h);
      return h;
    },
    async storeTables(h) {
      const { rows } =
        dialect.name === 'postgres'
          ? await sql<{
              name: string;
            }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
              h.db,
            )
          : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(h.db);
      return rows.map((r) => r.name).filter((name) => !name.startsWith('kysely_') && !name.startsWith('sqlite_'));
    },
    async ledger(accountId) {
      return ready(handle)
        .db.selectFrom('ledger')
        .select(['bucket', 'delta', 'balance_after', 'reason', 'reference'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
    },
    async newKey(accountId) {
      hashes += 1;
      const key = await ready(store).keys.createKey(accountId, `hash-${hashes}`, 'hint', defaultKeySettings, now);
      return key.id;
    },
  };

  before(async () => {
    location = await suite.freshLocation(dialect);
    handle = suite.open(location);
    await migrate(handle);
    store = storeOn(handle);
  });
  after(async () => {
    for (const h of handles.splice(0)) await h.close();
    await dialect.cleanup();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return suite;
}
