/**
 * Migrations on every dialect: run twice, keep their names, one store per schema, complete
 * after a cut-off run, and two processes starting at once on an empty store.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Migration } from 'kysely';
import { MigrationError } from '../../../src/adapters/store/index.js';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.js';
import { storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import type { StoreLocation } from '../../../src/adapters/store/index.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { accountInput, now, storeSuite } from '../../helpers/store-suite.js';

/**
 * Every object of the store's schema other than Kysely's own migration tables: on SQLite
 * every entry of `sqlite_master` (tables, indexes, triggers, views); on PostgreSQL every
 * relation (tables, indexes, sequences, views), function and type of the current schema.
 */
async function storeObjects(h: StoreConnection): Promise<string[]> {
  const { rows } =
    h.dialect === 'postgres'
      ? await sql<{ name: string }>`
          select 'relation ' || relname as name from pg_class where relnamespace = current_schema()::regnamespace
          union all
          select 'function ' || proname from pg_proc where pronamespace = current_schema()::regnamespace
          union all
          select 'type ' || typname from pg_type where typnamespace = current_schema()::regnamespace`.execute(h.db)
      : await sql<{ name: string }>`select type || ' ' || name as name from sqlite_master`.execute(h.db);
  return rows
    .map((r) => r.name)
    .filter((name) => !/^[a-z]+ _?kysely_/.test(name) && !/^[a-z]+ sqlite_/.test(name))
    .sort();
}

for (const dialect of testDialects()) {
  describeOn(dialect, `store (${dialect.name})`, () => {
    const suite = storeSuite(dialect);
    const { freshLocation, open, storeTables } = suite;
    let store: SqlStore;
    let handle: StoreConnection;
    let location: StoreLocation;
    before(() => {
      ({ store, handle, location } = suite);
    });

    describe('migrations', () => {
      it('run twice on one store, idempotently, keeping the data', async () => {
        const account = await store.accounts.createAccount(accountInput('Kept', 42), now);
        await migrate(handle);
        await migrate(handle);
        const again = open(location);
        await migrate(again);
        const seen = await storeOn(again).accounts.getAccount(account.id);
        assert.equal(seen?.name, 'Kept');
        assert.equal(seen?.balanceMain, 42);
        const names = Object.keys(await migrationProvider(dialect.name).getMigrations());
        const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db);
        assert.deepEqual(
          applied.rows.map((r) => r.name),
          names.sort(),
        );
      });

      it('keep the names every store made so far has recorded, in order (a renamed migration would run again)', async () => {
        const names = Object.keys(await migrationProvider(dialect.name).getMigrations());
        assert.deepEqual(names, [
          '0001-accounts-keys',
          '0002-sends-messages',
          '0003-groups-contacts-blocklist',
          '0004-webhook-events',
          '0005-bulk-expansion',
          '0006-inbound',
          '0007-claim-order',
          '0008-lookup-version',
          '0009-drop-unread-indexes',
          '0010-balance-version',
          '0011-webhook-event-selection',
          '0012-unique-sender-ids',
          '0013-webhook-retry-schedule',
          '0014-panel-users',
          '0015-panel-counts',
          '0016-rollups-by-writes',
          '0017-traffic-minutes',
          '0018-audit-log',
          '0019-retention',
          '0020-rate-windows',
          '0021-lookup-notify',
          '0024-iys',
          '0025-smpp-users',
          '0026-otp',
          '0028-consent-versions',
          '0029-otp-watch',
          '0030-smpp-parts-mo',
          '0031-consent-rets-index',
          '0032-smpp-binds',
          '0033-lanes',
          '0034-carrier-binds',
          '0035-derived-counts',
          '0036-consent-sync-counts',
          '0038-otp-prefix-rates',
          '0039-smpp-part-schedule',
          '0045-resellers',
          '0055-templates',
          '0056-short-links',
          '0057-campaign-controls',
          '0058-outbox',
          '0059-send-controls',
          '0060-refund-policy',
          '0061-webhook-buckets',
          '0063-cancel-settling',
          '0064-brands',
          '0065-send-short-links',
        ]);
      });

      it('a second store beside a migrated one (another schema of the same database) migrates on its own', async () => {
        const other = open(await freshLocation(dialect));
        await migrate(other);
        const otherStore = storeOn(other);
        const a = await otherStore.accounts.createAccount(accountInput('Elsewhere'), now);
        assert.equal((await otherStore.accounts.getAccount(a.id))?.name, 'Elsewhere');
        assert.notEqual((await store.accounts.getAccount(a.id))?.name, 'Elsewhere');
      });

      it('a run of migrations cut off anywhere leaves nothing behind, and the next start completes it', async () => {
        const real = await migrationProvider(dialect.name).getMigrations();
        const names = Object.keys(real).sort();
        // SQLite: every cut. PostgreSQL runs DDL in the run's one transaction, so every cut
        // meets the same rollback; the first, every sixth and the last prove it there at a
        // fifth of the cost (every cut took 90 s of a full run).
        const cuts =
          dialect.name === 'sqlite' ? names : names.filter((_, i) => i === 0 || i === names.length - 1 || i % 6 === 0);
        // The next start after a cut is a start on an empty store when nothing of the store is
        // left: every object of the schema (tables, indexes, triggers, views; on PostgreSQL
        // also sequences, functions and types) is checked gone after every cut. A start on
        // an empty store is the same whatever was cut, so the next start completes the store
        // after the first, a middle and the last cut (completing after every cut cost more
        // than the cuts themselves: a migration from zero each).
        const migrated = await storeObjects(handle);
        assert.ok(
          migrated.length > (await storeTables(handle)).length,
          'a migrated store has more objects than tables: the check sees indexes and the rest',
        );
        const completed = new Set([cuts[0], cuts[Math.floor(cuts.length / 2)], cuts[cuts.length - 1]]);
        for (const cut of cuts) {
          // The cut migration's statements all run, then it fails before it is recorded:
          // what a crash at the worst moment leaves, on a fresh store.
          const cutOff: Record<string, Migration> = {};
          for (const name of names) {
            const migration = real[name];
            assert.ok(migration);
            cutOff[name] =
              name === cut
                ? {
                    up: async (db) => {
                      await migration.up(db);
                      throw new Error(`cut off after ${name}`);
                    },
                  }
                : migration;
          }
          const h = open(await freshLocation(dialect));
          await assert.rejects(migrate(h, { getMigrations: async () => cutOff }), MigrationError);
          const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(h.db);
          assert.deepEqual(applied.rows, [], `nothing recorded when ${cut} is cut off`);
          assert.deepEqual(await storeTables(h), [], `no table of the store left when ${cut} is cut off`);
          assert.deepEqual(await storeObjects(h), [], `nothing of the store left when ${cut} is cut off`);
          if (!completed.has(cut)) continue;
          await migrate(h);
          const done = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(h.db);
          assert.deepEqual(
            done.rows.map((r) => r.name),
            names,
          );
          const a = await storeOn(h).accounts.createAccount(accountInput('After the cut'), now);
          assert.equal((await storeOn(h).accounts.getAccount(a.id))?.name, 'After the cut');
        }
        assert.equal(completed.size, 3, 'three cuts are completed');
        for (const cut of completed) assert.ok(cut !== undefined && cuts.includes(cut), `${cut} is one of the cuts`);
      });

      it('two processes starting at once on an empty store both migrate it', async () => {
        const at = await freshLocation(dialect);
        const first = open(at);
        const second = open(at);
        await Promise.all([migrate(first), migrate(second)]);
        const a = await storeOn(first).accounts.createAccount(accountInput('Both'), now);
        assert.equal((await storeOn(second).accounts.getAccount(a.id))?.name, 'Both');
      });
    });
  });
}
