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
import { createHarness } from '../helpers/harness.js';
import { openAppContainer } from '../../src/main.js';
import { migrate, openDb } from '../../src/adapters/store/database.js';
import { sql } from 'kysely';

describe('key lookup cache (SQLite)', () => {
  it('sees this process\u2019s changes at once', async () => {
    const h = await createHarness();
    try {
      const p = await h.provision({ account: { balanceMain: 10 } });
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 10);
      await h.runtime.admin.topup(p.accountId, 5, false);
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 15);
      await h.runtime.admin.changeKeyState(p.keyId, 'pause');
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.result_code, 'TS-1035');
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
      await other.admin.topup(p.accountId, 7, false);
      await nextTurn();
      assert.equal((await server.post('/balance/', { api_key: p.apiKey })).body.balance_main, 17);
      await other.admin.changeKeyState(p.keyId, 'revoke');
      await nextTurn();
      assert.equal((await server.post('/balance/', { api_key: p.apiKey })).body.result_code, 'TS-1035');
      const suspended = await server.provision();
      assert.equal((await server.post('/balance/', { api_key: suspended.apiKey })).status, 200);
      await other.admin.updateAccount(suspended.accountId, { status: 'Suspended' }, {});
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
  it('counts a charge or top-up of this process as a balance change only, and answers the balance after it', async () => {
    const h = await createHarness();
    try {
      const p = await h.provision({ account: { balanceMain: 10 } });
      const changes = h.runtime.store.changes;
      assert.ok(changes);
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 10);
      const [keys, balances] = [changes.keys(), changes.balances()];
      const sent = await h.post('/sms/send', { api_key: p.apiKey, sentto: '905321234567', title: 'ACME', text: 'charged', sms_lang: 0 });
      assert.equal(sent.body.result_code, 'TS-1024');
      assert.equal(changes.keys(), keys, 'the charge emptied the key cache');
      assert.ok(changes.balances() > balances, 'the charge was not counted as a balance change');
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 9);
      await h.runtime.admin.topup(p.accountId, 5, false);
      assert.equal(changes.keys(), keys);
      assert.equal((await h.post('/balance/', { api_key: p.apiKey })).body.balance_main, 14);
    } finally {
      await h.close();
    }
  });
});

describe('the change signal of the lookup caches (SQLite)', () => {
  it('moves with writes to accounts, api_keys and sender_ids by any connection, and not with other commits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haberci-lookupversion-'));
    const file = join(dir, 'haberci.sqlite');
    const server = openDb({ dialect: 'sqlite', file });
    const other = openDb({ dialect: 'sqlite', file });
    try {
      await migrate(server);
      const external = (): number => server.changes?.external().lookups ?? Number.NaN;
      const balances = (): number => server.changes?.external().balances ?? Number.NaN;
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
      await sql`insert into api_keys (account_id, key_hash, key_hint, state, permissions, created_at, updated_at) values (1, 'h', 'hint', 'Active', '{}', 0, 0)`.execute(other.db);
      assert.ok(external() > afterBalance, 'a new key moves it');
      const afterKey = external();
      await sql`insert into sender_ids (account_id, title, status, created_at) values (1, 'ACME', 'approved', 0)`.execute(other.db);
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
