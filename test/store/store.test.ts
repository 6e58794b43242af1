/**
 * The store on every dialect: migrations, the ledger, the balance that never goes
 * negative, and the two operations that must hold under concurrency (spending balance
 * and counting requests).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Migration } from 'kysely';
import { MigrationError } from '../../src/adapters/store/index.js';
import { migrate } from '../../src/adapters/store/migrate.js';
import { openConnection } from '../../src/adapters/store/open-store.js';
import type { StoreConnection } from '../../src/adapters/store/connection.js';
import type { StoreLocation } from '../../src/adapters/store/index.js';
import { migrationProvider } from '../../src/adapters/store/migrations/index.js';
import { storeOn } from '../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../src/adapters/store/sql-store.js';
import { allPermissions } from '../../src/domain/permissions.js';
import { defaultKeySettings } from '../../src/services/admin.js';
import type { Account, AccountInput } from '../../src/ports/accounts.js';
import type { LimitHit } from '../../src/domain/request-limits.js';
import { describeOn, testDialects } from '../helpers/dialects.js';
import type { TestDialect } from '../helpers/dialects.js';

const now = Date.UTC(2026, 2, 15, 9, 0, 0);

function accountInput(name: string, balanceMain = 0, balanceInternational = 0): AccountInput {
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

function isAccount(value: Account | 'insufficient' | null): value is Account {
  return value !== null && value !== 'insufficient';
}

for (const dialect of testDialects()) {
  describeOn(dialect, `store (${dialect.name})`, () => {
    const dirs: string[] = [];
    const handles: StoreConnection[] = [];
    let handle: StoreConnection;
    let store: SqlStore;
    let location: StoreLocation;
    let hashes = 0;

    /** A fresh, empty store: a file for SQLite (so that it can be opened twice), a schema for PostgreSQL. */
    async function freshLocation(d: TestDialect): Promise<StoreLocation> {
      if (d.name === 'postgres') return d.location();
      const dir = mkdtempSync(join(tmpdir(), 'haberci-store-'));
      dirs.push(dir);
      return { dialect: 'sqlite', file: join(dir, 'store.sqlite') };
    }

    function open(at: StoreLocation): StoreConnection {
      const h = openConnection(at);
      handles.push(h);
      return h;
    }

    /** The tables of this store (this schema on PostgreSQL), less Kysely's own. */
    async function storeTables(h: StoreConnection): Promise<string[]> {
      const { rows } =
        dialect.name === 'postgres'
          ? await sql<{
              name: string;
            }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
              h.db,
            )
          : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(h.db);
      return rows.map((r) => r.name).filter((name) => !name.startsWith('kysely_') && !name.startsWith('sqlite_'));
    }

    async function ledger(
      accountId: number,
    ): Promise<{ bucket: string; delta: number; balance_after: number; reason: string; reference: string | null }[]> {
      return handle.db
        .selectFrom('ledger')
        .select(['bucket', 'delta', 'balance_after', 'reason', 'reference'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
    }

    async function newKey(accountId: number): Promise<number> {
      hashes += 1;
      const key = await store.keys.createKey(accountId, `hash-${hashes}`, 'hint', defaultKeySettings, now);
      return key.id;
    }

    before(async () => {
      location = await freshLocation(dialect);
      handle = open(location);
      await migrate(handle);
      store = storeOn(handle);
    });
    after(async () => {
      for (const h of handles.splice(0)) await h.close();
      await dialect.cleanup();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
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
          '0026-otp',
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
        for (const cut of names) {
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
          await migrate(h);
          const done = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(h.db);
          assert.deepEqual(
            done.rows.map((r) => r.name),
            names,
          );
          const a = await storeOn(h).accounts.createAccount(accountInput('After the cut'), now);
          assert.equal((await storeOn(h).accounts.getAccount(a.id))?.name, 'After the cut');
        }
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

    describe('ledger and balance', () => {
      it('records every balance change with balance_after', async () => {
        const account = await store.accounts.createAccount(accountInput('Ledger', 100, 20), now);
        assert.equal(account.balanceMain, 100);
        assert.equal(account.balanceInternational, 20);
        const spent = await store.accounts.adjustBalance(account.id, 'main', -30, 'send', 'sms:1', now);
        assert.ok(isAccount(spent));
        assert.equal(spent.balanceMain, 70);
        await store.accounts.adjustBalance(account.id, 'international', 5, 'top-up', null, now);
        await store.accounts.adjustBalance(account.id, 'main', 1, 'refund', 'sms:1', now);
        assert.deepEqual(await ledger(account.id), [
          { bucket: 'main', delta: 100, balance_after: 100, reason: 'opening balance', reference: null },
          { bucket: 'international', delta: 20, balance_after: 20, reason: 'opening balance', reference: null },
          { bucket: 'main', delta: -30, balance_after: 70, reason: 'send', reference: 'sms:1' },
          { bucket: 'international', delta: 5, balance_after: 25, reason: 'top-up', reference: null },
          { bucket: 'main', delta: 1, balance_after: 71, reason: 'refund', reference: 'sms:1' },
        ]);
        const final = await store.accounts.getAccount(account.id);
        assert.equal(final?.balanceMain, 71);
        assert.equal(final?.balanceInternational, 25);
      });

      it('the ledger sums to the balance', async () => {
        const account = await store.accounts.createAccount(accountInput('Sums', 10), now);
        for (const delta of [5, -3, 12, -24, 7])
          await store.accounts.adjustBalance(account.id, 'main', delta, 'x', null, now);
        const rows = await ledger(account.id);
        const sum = rows.reduce((s, r) => s + r.delta, 0);
        assert.equal(sum, 7);
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 7);
        assert.equal(rows.at(-1)?.balance_after, 7);
      });

      it('an account opened with no balance has no ledger rows', async () => {
        const account = await store.accounts.createAccount(accountInput('Empty'), now);
        assert.deepEqual(await ledger(account.id), []);
      });

      it('adjustBalance answers insufficient and changes nothing when the balance would go negative', async () => {
        const account = await store.accounts.createAccount(accountInput('Poor', 100), now);
        const before = await ledger(account.id);
        assert.equal(await store.accounts.adjustBalance(account.id, 'main', -101, 'send', null, now), 'insufficient');
        assert.equal(
          await store.accounts.adjustBalance(account.id, 'international', -1, 'send', null, now),
          'insufficient',
        );
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 100);
        assert.deepEqual(await ledger(account.id), before);
        const drained = await store.accounts.adjustBalance(account.id, 'main', -100, 'send', null, now);
        assert.ok(isAccount(drained));
        assert.equal(drained.balanceMain, 0);
        assert.equal(await store.accounts.adjustBalance(account.id, 'main', -1, 'send', null, now), 'insufficient');
      });

      it('adjustBalance answers null for an unknown account and writes nothing', async () => {
        assert.equal(await store.accounts.adjustBalance(999_999, 'main', 10, 'x', null, now), null);
        assert.deepEqual(await ledger(999_999), []);
      });

      it('the balance can never go negative, even by a direct SQL UPDATE', async () => {
        const account = await store.accounts.createAccount(accountInput('Guarded', 5, 5), now);
        await assert.rejects(
          handle.db.updateTable('accounts').set({ balance_main: -1 }).where('id', '=', account.id).execute(),
        );
        await assert.rejects(
          sql`UPDATE accounts SET balance_international = balance_international - 6 WHERE id = ${account.id}`.execute(
            handle.db,
          ),
        );
        await assert.rejects(
          handle.db
            .insertInto('ledger')
            .values({
              account_id: account.id,
              bucket: 'main',
              delta: -6,
              balance_after: -1,
              reason: 'x',
              reference: null,
              created_at: now,
            })
            .execute(),
        );
        const seen = await store.accounts.getAccount(account.id);
        assert.equal(seen?.balanceMain, 5);
        assert.equal(seen?.balanceInternational, 5);
      });

      it('balances and times are plain numbers, large ones included', async () => {
        const big = 2 ** 40;
        const account = await store.accounts.createAccount(accountInput('Big', big), now);
        const seen = await store.accounts.getAccount(account.id);
        assert.equal(typeof seen?.balanceMain, 'number');
        assert.equal(seen?.balanceMain, big);
        assert.equal(typeof seen?.createdAt, 'number');
        assert.equal(seen?.createdAt, now);
      });

      it('50 concurrent spends of 10 from 300 never overspend: exactly 30 succeed', async () => {
        const account = await store.accounts.createAccount(accountInput('Race', 300), now);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.accounts.adjustBalance(account.id, 'main', -10, 'send', `sms:${i}`, now),
          ),
        );
        assert.equal(results.filter(isAccount).length, 30);
        assert.equal(results.filter((r) => r === 'insufficient').length, 20);
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 0);
        const spends = (await ledger(account.id)).filter((r) => r.delta === -10);
        assert.equal(spends.length, 30);
        assert.deepEqual(
          spends.map((r) => r.balance_after).sort((a, b) => a - b),
          Array.from({ length: 30 }, (_, i) => i * 10),
        );
      });

      it('a failed transaction leaves neither balance nor ledger changed', async () => {
        const account = await store.accounts.createAccount(accountInput('Rollback', 50), now);
        await assert.rejects(
          store.transaction(async (s) => {
            await s.accounts.adjustBalance(account.id, 'main', 100, 'top-up', null, now);
            throw new Error('after the write');
          }),
          /after the write/,
        );
        assert.equal((await store.accounts.getAccount(account.id))?.balanceMain, 50);
        assert.equal((await ledger(account.id)).length, 1);
      });
    });

    describe('request counting', () => {
      const windows = { hour: '2026-03-15T12', day: '2026-03-15', month: '2026-03' };

      it('50 concurrent requests with an hourly limit of 20: exactly 20 are counted', async () => {
        const account = await store.accounts.createAccount(accountInput('Counted'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 20, daily: 0, monthly: 0 };
        const hits = await Promise.all(
          Array.from({ length: 50 }, () =>
            store.keys.consumeRequests([{ keyId, limits, windows }]).then(([hit = null]) => hit),
          ),
        );
        assert.equal(hits.filter((h) => h === null).length, 20);
        assert.equal(hits.filter((h) => h === 'hourly').length, 30);
        const row = await handle.db.selectFrom('key_usage').selectAll().where('key_id', '=', keyId).executeTakeFirst();
        assert.equal(row?.hour_count, 20);
        assert.equal(row?.day_count, 20);
        assert.equal(row?.month_count, 20);
      });

      it('a new window starts again at one, also under concurrency; the longer windows keep counting', async () => {
        const account = await store.accounts.createAccount(accountInput('Windows'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 20, daily: 30, monthly: 0 };
        const burst = (w: typeof windows): Promise<(LimitHit | null)[]> =>
          Promise.all(
            Array.from({ length: 50 }, () =>
              store.keys.consumeRequests([{ keyId, limits, windows: w }]).then(([hit = null]) => hit),
            ),
          );
        const first = await burst(windows);
        assert.equal(first.filter((h) => h === null).length, 20);
        const second = await burst({ ...windows, hour: '2026-03-15T13' });
        assert.equal(second.filter((h) => h === null).length, 10);
        assert.equal(second.filter((h) => h === 'daily').length, 40);
        const nextDay = await burst({ hour: '2026-03-16T00', day: '2026-03-16', month: '2026-03' });
        assert.equal(nextDay.filter((h) => h === null).length, 20);
      });

      it('batches of many requests of several keys, four at once: each key counted exactly to its limit, in arrival order', async () => {
        const account = await store.accounts.createAccount(accountInput('Batched'), now);
        const a = await newKey(account.id);
        const b = await newKey(account.id);
        const limitsA = { hourly: 0, daily: 30, monthly: 0 };
        const limitsB = { hourly: 10, daily: 0, monthly: 100 };
        const batch = (): { keyId: number; limits: typeof limitsA; windows: typeof windows }[] =>
          Array.from({ length: 25 }, (_, i) =>
            i % 2 === 0 ? { keyId: a, limits: limitsA, windows } : { keyId: b, limits: limitsB, windows },
          );
        const batches = await Promise.all(
          [batch(), batch(), batch(), batch()].map((items) =>
            store.keys.consumeRequests(items).then((hits) => ({ items, hits })),
          ),
        );
        const of = (keyId: number): (LimitHit | null)[] =>
          batches.flatMap(({ items, hits }) => hits.filter((_, i) => items[i]?.keyId === keyId));
        assert.equal(of(a).filter((h) => h === null).length, 30);
        assert.deepEqual([...new Set(of(a).filter((h) => h !== null))], ['daily']);
        assert.equal(of(b).filter((h) => h === null).length, 10);
        assert.deepEqual([...new Set(of(b).filter((h) => h !== null))], ['hourly']);
        // Within a batch the first requests are the ones admitted.
        for (const { items, hits } of batches) {
          const forB = hits.filter((_, i) => items[i]?.keyId === b);
          const firstRefused = forB.findIndex((h) => h !== null);
          if (firstRefused !== -1)
            assert.ok(
              forB.slice(firstRefused).every((h) => h !== null),
              JSON.stringify(forB),
            );
        }
        const rowB = await handle.db.selectFrom('key_usage').selectAll().where('key_id', '=', b).executeTakeFirst();
        assert.deepEqual([rowB?.hour_count, rowB?.day_count, rowB?.month_count], [10, 10, 10]);
      });

      it('a batch whose requests of one key straddle an hour counts each in its own window', async () => {
        const account = await store.accounts.createAccount(accountInput('Straddle'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 2, daily: 0, monthly: 0 };
        const next = { ...windows, hour: '2026-03-15T13' };
        const hits = await store.keys.consumeRequests(
          [windows, windows, windows, next, next, next].map((w) => ({ keyId, limits, windows: w })),
        );
        assert.deepEqual(hits, [null, null, 'hourly', null, null, 'hourly']);
      });

      it('answers a batch by position: one request object standing for several requests (a lease) gets an answer for each', async () => {
        const account = await store.accounts.createAccount(accountInput('Lease'), now);
        const keyId = await newKey(account.id);
        const request = { keyId, limits: { hourly: 3, daily: 0, monthly: 0 }, windows };
        assert.deepEqual(await store.keys.consumeRequests([request, request, request, request, request]), [
          null,
          null,
          null,
          'hourly',
          'hourly',
        ]);
      });

      it('a reached monthly limit is named over a reached hourly one', async () => {
        const account = await store.accounts.createAccount(accountInput('Named'), now);
        const keyId = await newKey(account.id);
        const limits = { hourly: 1, daily: 0, monthly: 1 };
        assert.equal(await store.keys.consumeRequests([{ keyId, limits, windows }]).then(([hit = null]) => hit), null);
        assert.equal(
          await store.keys.consumeRequests([{ keyId, limits, windows }]).then(([hit = null]) => hit),
          'monthly',
        );
      });
    });

    describe('keys and sender IDs', () => {
      it('a key reads back with the settings it was created with', async () => {
        const account = await store.accounts.createAccount(accountInput('Keys'), now);
        const settings = {
          ...defaultKeySettings,
          permissions: { ...allPermissions(false), check_balance: true, send_otp: true },
          ipAllow: ['10.0.0.0/8', '2001:db8::/32'],
          hourlyLimit: 5,
          dailyLimit: 50,
          monthlyLimit: 500,
          expiresOn: '2026-12-31',
          webhookUrl: 'https://example.test/hook',
          webhookSecret: 's3cret',
          webhookAttempts: 7,
          webhookEvents: ['sms.delivered' as const, 'sms.received' as const],
          webhookRetryScheduleMs: [30_000, 7_200_000],
          sandbox: true,
        };
        const created = await store.keys.createKey(account.id, 'round-trip-hash', 'hb_test_abcd…', settings, now);
        const found = await store.keys.findKeyByHash('round-trip-hash');
        assert.equal(found?.account.id, account.id);
        assert.deepEqual(found?.key, created);
        assert.deepEqual(
          {
            permissions: created.permissions,
            ipAllow: created.ipAllow,
            hourlyLimit: created.hourlyLimit,
            dailyLimit: created.dailyLimit,
            monthlyLimit: created.monthlyLimit,
            expiresOn: created.expiresOn,
            webhookUrl: created.webhookUrl,
            webhookSecret: created.webhookSecret,
            webhookAttempts: created.webhookAttempts,
            webhookEvents: created.webhookEvents,
            webhookRetryScheduleMs: created.webhookRetryScheduleMs,
            sandbox: created.sandbox,
          },
          settings,
        );
        assert.equal(created.state, 'Active');
        assert.equal(created.validUntil, null);
        assert.equal(await store.keys.findKeyByHash('no-such-hash'), null);
      });

      it('two keys cannot share a hash', async () => {
        const account = await store.accounts.createAccount(accountInput('Unique'), now);
        await store.keys.createKey(account.id, 'same-hash', 'h', defaultKeySettings, now);
        await assert.rejects(store.keys.createKey(account.id, 'same-hash', 'h', defaultKeySettings, now));
      });

      it('approved sender IDs come newest first, by time then by record', async () => {
        const account = await store.accounts.createAccount(accountInput('Senders'), now);
        await store.senderIds.addSenderId(account.id, 'A', 'approved', now);
        await store.senderIds.addSenderId(account.id, 'B', 'approved', now + 1000);
        await store.senderIds.addSenderId(account.id, 'C', 'approved', now + 1000);
        await store.senderIds.addSenderId(account.id, 'P', 'pending', now + 2000);
        await store.senderIds.addSenderId(account.id, 'R', 'rejected', now + 3000);
        assert.deepEqual(
          (await store.senderIds.approvedSenderIds(account.id)).map((s) => s.title),
          ['C', 'B', 'A'],
        );
      });

      it('a title is one sender ID per account, case-sensitive: a second add gives null and changes nothing', async () => {
        const account = await store.accounts.createAccount(accountInput('Once'), now);
        const other = await store.accounts.createAccount(accountInput('Other'), now);
        const first = await store.senderIds.addSenderId(account.id, 'ONCE', 'pending', now);
        assert.equal(await store.senderIds.addSenderId(account.id, 'ONCE', 'approved', now + 1000), null);
        assert.equal((await store.senderIds.addSenderId(account.id, 'Once', 'approved', now))?.title, 'Once');
        assert.equal((await store.senderIds.addSenderId(other.id, 'ONCE', 'approved', now))?.accountId, other.id);
        assert.deepEqual(await store.senderIds.getSenderId(first?.id ?? 0), first);
        assert.deepEqual(
          (await store.senderIds.listOf(account.id)).map((s) => [s.title, s.status]),
          [
            ['ONCE', 'pending'],
            ['Once', 'approved'],
          ],
        );
      });

      it('a removed sender ID is gone, and its title can be added again', async () => {
        const account = await store.accounts.createAccount(accountInput('Removed'), now);
        const added = await store.senderIds.addSenderId(account.id, 'GONE', 'approved', now);
        assert.ok(added);
        assert.equal(await store.senderIds.hasApprovedSender(account.id, 'GONE'), true);
        assert.equal(await store.senderIds.removeSenderId(added.id), true);
        assert.equal(await store.senderIds.removeSenderId(added.id), false);
        assert.equal(await store.senderIds.getSenderId(added.id), null);
        assert.equal(await store.senderIds.hasApprovedSender(account.id, 'GONE'), false);
        assert.equal((await store.senderIds.addSenderId(account.id, 'GONE', 'pending', now))?.status, 'pending');
      });

      it('migration 0012 folds earlier duplicates into the row that decided sends: approved first, then the oldest', async () => {
        const at = await freshLocation(dialect);
        const h = open(at);
        const all = await migrationProvider(dialect.name).getMigrations();
        const before0012 = Object.fromEntries(Object.entries(all).filter(([name]) => name < '0012'));
        await migrate(h, { getMigrations: async () => before0012 });
        const old = storeOn(h);
        const account = await old.accounts.createAccount(accountInput('Duplicates'), now);
        const rows: [string, 'approved' | 'pending' | 'rejected'][] = [
          ['MIXED', 'pending'],
          ['MIXED', 'approved'],
          ['MIXED', 'approved'],
          ['MIXED', 'rejected'],
          ['WAITING', 'rejected'],
          ['WAITING', 'pending'],
          ['SINGLE', 'approved'],
        ];
        const ids: number[] = [];
        // As the store wrote them before the unique index (addSenderId now relies on it).
        for (const [title, status] of rows) {
          const row = await h.db
            .insertInto('sender_ids')
            .values({ account_id: account.id, title, status, created_at: now })
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(row.id);
        }
        await migrate(h);
        assert.deepEqual(
          (await storeOn(h).senderIds.listOf(account.id)).map((s) => [s.id, s.title, s.status]),
          [
            [ids[1], 'MIXED', 'approved'],
            [ids[4], 'WAITING', 'rejected'],
            [ids[6], 'SINGLE', 'approved'],
          ],
        );
      });
    });
  });
}
