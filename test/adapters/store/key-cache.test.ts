/**
 * Key lookups are cached on SQLite; every change to a key or its account must still show in
 * the next request, whether this process made it or another connection did.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createHarness } from '../../helpers/harness.js';
import { openAppContainer } from '../../../src/main.js';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';
import { LookupCaches } from '../../../src/adapters/store/lookup-caches.js';
import { openStore } from '../../../src/adapters/store/index.js';
import { defaultKeySettings } from '../../../src/services/admin.js';
import { sql } from 'kysely';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { valueOf } from '../../helpers/results.js';

describe('key lookup cache (SQLite)', () => {
  it('sees this process\u2019s changes at once', async () => {
    const h = await createHarness();
    try {
      const p = await h.provision({ account: { balanceMain: 10 } });
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 10);
      await valueOf(h.runtime.admin.topup(p.accountId, 5, false));
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 15);
      await valueOf(h.runtime.admin.changeKeyState(p.keyId, 'pause'));
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.result_code, 'TS-1035');
      const suspended = await h.provision();
      assert.equal((await h.post('/balance/', { api_key: suspended.apiKey })).status, 200);
      await valueOf(h.runtime.admin.updateAccount(suspended.accountId, { status: 'Suspended' }, {}));
      assert.equal((await h.post('/balance/', { api_key: suspended.apiKey })).body.result_code, 'TS-1030');
    } finally {
      await h.close();
    }
  });

  it('sees another connection\u2019s changes at the next turn of the event loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-keycache-'));
    const file = join(dir, 'haberci.sqlite');
    const server = await createHarness({ dialect: 'sqlite', file });
    const other = await openAppContainer({ dialect: 'sqlite', file });
    try {
      const p = await server.provision({ account: { balanceMain: 10 } });
      assert.equal((await server.post('/balance/', { api_key: p.apiKey })).body.balance_main, 10);
      await valueOf(other.admin.topup(p.accountId, 7, false));
      await nextTurn();
      assert.equal((await server.post('/balance/', { api_key: p.apiKey })).body.balance_main, 17);
      await valueOf(other.admin.changeKeyState(p.keyId, 'revoke'));
      await nextTurn();
      assert.equal((await server.post('/balance/', { api_key: p.apiKey })).body.result_code, 'TS-1035');
      const suspended = await server.provision();
      assert.equal((await server.post('/balance/', { api_key: suspended.apiKey })).status, 200);
      await valueOf(other.admin.updateAccount(suspended.accountId, { status: 'Suspended' }, {}));
      await nextTurn();
      assert.equal((await server.post('/balance/', { api_key: suspended.apiKey })).body.result_code, 'TS-1030');
    } finally {
      await other.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('balances under the key cache (SQLite)', () => {
  it('answers the balance after a charge or a top-up of this process', async () => {
    const h = await createHarness();
    try {
      const p = await h.provision({ account: { balanceMain: 10 } });
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 10);
      const sent = await h.post('/sms/send', {
        api_key: p.apiKey,
        sentto: '905321234567',
        title: 'ACME',
        text: 'charged',
        sms_lang: 0,
      });
      assert.equal(sent.body.result_code, 'TS-1024');
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 9);
      await valueOf(h.runtime.admin.topup(p.accountId, 5, false));
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 14);
    } finally {
      await h.close();
    }
  });

  it('a balance change empties the balance cache and leaves the key and sender caches alone', async () => {
    const caches = new LookupCaches(() => ({ lookups: 0, balances: 0 }));
    let loads = 0;
    const load = async (): Promise<boolean> => {
      loads += 1;
      return true;
    };
    await caches.senders.lookup('1:ACME', load);
    await caches.balances.lookup('1', async () => ({ main: 1, international: 0 }));
    caches.balancesChanged();
    await caches.senders.lookup('1:ACME', load);
    assert.equal(loads, 1, 'the sender cache was emptied by a charge');
    let balanceLoads = 0;
    await caches.balances.lookup('1', async () => {
      balanceLoads += 1;
      return { main: 0, international: 0 };
    });
    assert.equal(balanceLoads, 1, 'the balance cache kept a balance across a charge');
    caches.keysChanged();
    await caches.balances.lookup('1', async () => {
      balanceLoads += 1;
      return { main: 0, international: 0 };
    });
    assert.equal(balanceLoads, 2, 'an account change must empty the balances laid over cached keys');
  });
});

describe('the triggers behind the change signal (SQLite)', () => {
  it('watch every column of accounts: the balances for the balance counter, every other column for the lookup counter', async () => {
    const connection = openConnection({ dialect: 'sqlite', file: ':memory:' });
    try {
      await migrate(connection);
      const columns = (
        await sql<{ name: string }>`select name from pragma_table_info('accounts')`.execute(connection.db)
      ).rows.map((r) => r.name);
      const triggers = (
        await sql<{
          name: string;
          sql: string;
        }>`select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'accounts'`.execute(connection.db)
      ).rows;
      const watched = (name: string): string[] => {
        const text = triggers.find((t) => t.name === name)?.sql ?? '';
        const list = /after update of (.*?) on accounts/i.exec(text)?.[1] ?? '';
        return list.split(',').map((c) => c.trim());
      };
      const balances = ['balance_main', 'balance_international'];
      // Columns no lookup cache holds: the key lookup leaves them out, and who reads them
      // reads the store (the reseller's use cases: src/services/reseller-service.ts; the refund
      // policy, read with the rows a receipt settles).
      const uncached = ['reseller', 'parent_id', 'refund_undelivered'];
      assert.deepEqual(watched('accounts_balance_lookup_version').sort(), [...balances].sort());
      // A column added to accounts without a migration that recreates this trigger would
      // leave the key cache of another connection stale after an update of that column.
      assert.deepEqual(
        watched('accounts_update_lookup_version').sort(),
        columns.filter((c) => !balances.includes(c) && !uncached.includes(c)).sort(),
      );
    } finally {
      await connection.close();
    }
  });
});

describe('the change signal of the lookup caches (SQLite)', () => {
  it('moves with writes to accounts, api_keys and sender_ids by any connection, and not with other commits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-lookupversion-'));
    const file = join(dir, 'haberci.sqlite');
    const server = openConnection({ dialect: 'sqlite', file });
    const other = openConnection({ dialect: 'sqlite', file });
    try {
      await migrate(server);
      const external = (): number => server.externalChanges?.().lookups ?? Number.NaN;
      const balances = (): number => server.externalChanges?.().balances ?? Number.NaN;
      const before = external();
      assert.ok(Number.isInteger(before));
      const balancesBefore = balances();
      // What the delivery thread commits all the time: messages, parts, events, counters.
      await sql`update id_counter set next_id = next_id + 5`.execute(other.db);
      assert.equal(external(), before, 'a commit that touched no looked-up table leaves the caches alone');
      assert.equal(balances(), balancesBefore);
      await sql`insert into accounts (name, created_at) values ('x', 0)`.execute(other.db);
      const afterInsert = external();
      assert.ok(afterInsert > before, 'a new account moves it');
      await sql`update accounts set balance_main = 5`.execute(other.db);
      assert.equal(external(), afterInsert, 'a balance change leaves the key and sender lookups alone');
      assert.ok(balances() > balancesBefore, 'a balance change moves the balance counter');
      await sql`update accounts set status = 'Suspended', balance_international = 3`.execute(other.db);
      assert.ok(external() > afterInsert, 'a change of another column moves it, a balance changed with it or not');
      const afterBalance = external();
      await sql`insert into api_keys (account_id, key_hash, key_hint, state, permissions, created_at, updated_at) values (1, 'h', 'hint', 'Active', '{}', 0, 0)`.execute(
        other.db,
      );
      assert.ok(external() > afterBalance, 'a new key moves it');
      const afterKey = external();
      await sql`insert into sender_ids (account_id, title, status, created_at) values (1, 'ACME', 'approved', 0)`.execute(
        other.db,
      );
      assert.ok(external() > afterKey, 'a sender ID moves it');
      const afterSender = external();
      await sql`delete from sender_ids`.execute(other.db);
      assert.ok(external() > afterSender, 'a deleted sender ID moves it');
    } finally {
      await other.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the lookup caches and the store’s own writes (SQLite)', () => {
  it('every write method that changes a cached lookup empties its cache in the same turn of the event loop', async () => {
    // All of this runs within one turn: the counters of lookup_version are read once a
    // turn, so only the write methods' own invalidation can make the changes show.
    const store = await openStore({ dialect: 'sqlite', file: ':memory:' });
    try {
      const now = Date.UTC(2026, 2, 15, 9);
      const account = await store.accounts.createAccount(
        {
          name: 'Cached',
          balanceMain: 10,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        },
        now,
      );
      const key = await store.keys.createKey(account.id, 'hash-1', 'hint', { ...defaultKeySettings }, now);
      const found = async () => {
        const f = await store.keys.findKeyByHash('hash-1');
        assert.ok(f);
        return f;
      };
      assert.equal((await found()).key.state, 'Active');
      await store.keys.updateKey(key.id, { state: 'Paused' }, now);
      assert.equal((await found()).key.state, 'Paused', 'updateKey');
      await store.accounts.updateAccount(account.id, { status: 'Suspended' });
      assert.equal((await found()).account.status, 'Suspended', 'updateAccount');
      await store.accounts.adjustBalance(account.id, 'main', 5, 'top-up', null, now);
      assert.equal((await found()).account.balanceMain, 15, 'adjustBalance');
      await store.transaction((tx) =>
        tx.accounts.applyCharges(
          [{ accountId: account.id, bucket: 'main', amount: 3, reason: 'sms', reference: 'x' }],
          now,
        ),
      );
      assert.equal((await found()).account.balanceMain, 12, 'applyCharges in a transaction');

      assert.equal(await store.senderIds.hasApprovedSender(account.id, 'ACME'), false);
      const sender = await store.senderIds.addSenderId(account.id, 'ACME', 'approved', now);
      assert.ok(sender);
      assert.equal(await store.senderIds.hasApprovedSender(account.id, 'ACME'), true, 'addSenderId');
      await store.senderIds.removeSenderId(sender.id);
      assert.equal(await store.senderIds.hasApprovedSender(account.id, 'ACME'), false, 'removeSenderId');
      const pending = await store.senderIds.addSenderId(account.id, 'REVIEWED', 'pending', now);
      assert.ok(pending);
      assert.equal(await store.senderIds.hasApprovedSender(account.id, 'REVIEWED'), false);
      await store.users.reviewSenderId(pending.id, 'approved', null, now);
      assert.equal(await store.senderIds.hasApprovedSender(account.id, 'REVIEWED'), true, 'users.reviewSenderId');
    } finally {
      await store.close();
    }
  });
});

// PostgreSQL's change signal (migration 0021): the same guard on its triggers' column lists.
for (const postgres of testDialects().filter((d) => d.name === 'postgres')) {
  describeOn(postgres, 'the triggers behind the change signal (postgres)', () => {
    it('watch every column of accounts: the balances for the balance topic, every other column for the lookup topic', async () => {
      const connection = openConnection(await postgres.location());
      try {
        await migrate(connection);
        const columns = (
          await sql<{
            name: string;
          }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'accounts'`.execute(
            connection.db,
          )
        ).rows.map((r) => r.name);
        const watched = async (name: string): Promise<string[]> => {
          const { rows } = await sql<{
            def: string;
          }>`select pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = 'accounts'::regclass and tgname = ${name}`.execute(
            connection.db,
          );
          const list = /UPDATE OF (.*?) ON /.exec(rows[0]?.def ?? '')?.[1] ?? '';
          return list.split(',').map((c) => c.trim());
        };
        const balances = ['balance_main', 'balance_international'];
        // Columns no lookup cache holds: the key lookup leaves them out, and who reads them
        // reads the store (the reseller's use cases: src/services/reseller-service.ts; the refund
        // policy, read with the rows a receipt settles).
        const uncached = ['reseller', 'parent_id', 'refund_undelivered'];
        assert.deepEqual((await watched('accounts_balances_changed')).sort(), [...balances].sort());
        assert.deepEqual(
          (await watched('accounts_lookups_changed')).sort(),
          columns.filter((c) => !balances.includes(c) && !uncached.includes(c)).sort(),
        );
      } finally {
        await connection.close();
      }
    });
  });
}
