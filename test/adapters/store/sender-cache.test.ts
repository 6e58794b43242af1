/**
 * Sender ID checks are cached on SQLite, approved or not; every change to a sender ID must
 * still show in the next /sms/send, whether this process made it or another connection did.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createHarness } from '../../helpers/harness.js';
import type { Harness } from '../../helpers/harness.js';
import { adminProcess as admin } from '../../helpers/server-process.js';
import { assertAccepted, assertRefused, sendSms } from '../../helpers/sms.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import { LookupCache } from '../../../src/adapters/store/lookup-caches.js';
import { valueOf } from '../../helpers/results.js';

describe('sender ID cache (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haberci-sendercache-'));
  const file = join(dir, 'haberci.sqlite');
  let server: Harness;
  let other: StoreConnection;
  before(async () => {
    server = await createHarness({ dialect: 'sqlite', file });
    other = openConnection({ dialect: 'sqlite', file });
  });
  after(async () => {
    await other.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees this process’s changes at once', async () => {
    const p = await server.provision({ account: { balanceMain: 10 } });
    assertRefused(await sendSms(server, p.apiKey, { title: 'NEWCO' }), 'TS-1028', 400);
    const pending = await valueOf(server.runtime.admin.addSenderId(p.accountId, 'NEWCO', 'pending'));
    assertRefused(await sendSms(server, p.apiKey, { title: 'NEWCO' }), 'TS-1028', 400);
    // A title is one sender ID per account: the pending one goes before an approved one comes.
    await valueOf(server.runtime.admin.senderIds.remove({ id: pending.id }));
    const approved = await valueOf(server.runtime.admin.addSenderId(p.accountId, 'NEWCO', 'approved'));
    assertAccepted(await sendSms(server, p.apiKey, { title: 'NEWCO' }));
    await valueOf(server.runtime.admin.senderIds.remove({ id: approved.id }));
    assertRefused(await sendSms(server, p.apiKey, { title: 'NEWCO' }), 'TS-1028', 400);
  });

  it('sees the admin CLI’s and another connection’s changes in the next request', async () => {
    const p = await server.provision({ account: { balanceMain: 10 } });
    assertAccepted(await sendSms(server, p.apiKey));
    assertRefused(await sendSms(server, p.apiKey, { title: 'NEWCO' }), 'TS-1028', 400);

    await admin(['sender-id', 'add', '--account', String(p.accountId), '--title', 'NEWCO', '--data', dir]);
    await nextTurn();
    assertAccepted(await sendSms(server, p.apiKey, { title: 'NEWCO' }));
    await admin(['sender-id', 'remove', '--account', String(p.accountId), '--title', 'NEWCO', '--data', dir]);
    await nextTurn();
    assertRefused(await sendSms(server, p.apiKey, { title: 'NEWCO' }), 'TS-1028', 400);

    const setStatus = (status: 'approved' | 'rejected') =>
      other.db
        .updateTable('sender_ids')
        .set({ status })
        .where('account_id', '=', p.accountId)
        .where('title', '=', 'ACME')
        .execute();
    await setStatus('rejected');
    await nextTurn();
    assertRefused(await sendSms(server, p.apiKey), 'TS-1028', 400);
    await setStatus('approved');
    await nextTurn();
    assertAccepted(await sendSms(server, p.apiKey));
  });
});

describe('lookup cache', () => {
  function counters() {
    const state = { external: 0, local: 0 };
    return { state, cache: new LookupCache<string>({ external: () => state.external, local: () => state.local }, 2) };
  }
  const load = (value: string | null) => async () => value;

  it('is emptied when full, so unknown keys cannot grow it', async () => {
    const { cache } = counters();
    await cache.lookup('a', load('A'));
    await cache.lookup('b', load('B'));
    assert.equal(await cache.lookup('a', load('new A')), 'A');
    await cache.lookup('c', load('C'));
    assert.equal(await cache.lookup('a', load('new A')), 'new A');
    assert.equal(await cache.lookup('c', load('new C')), 'C');
  });

  it('never remembers null', async () => {
    const { cache } = counters();
    assert.equal(await cache.lookup('a', load(null)), null);
    assert.equal(await cache.lookup('a', load('A')), 'A');
  });

  it('forgets everything when either counter moves', async () => {
    const { state, cache } = counters();
    await cache.lookup('a', load('A'));
    state.external += 1;
    assert.equal(await cache.lookup('a', load('A2')), 'A2');
    state.local += 1;
    assert.equal(await cache.lookup('a', load('A3')), 'A3');
    assert.equal(await cache.lookup('a', load('A4')), 'A3');
  });

  it('keeps no answer loaded while the tables changed, even if another lookup saw the change first', async () => {
    const { state, cache } = counters();
    let release = (): void => undefined;
    const slow = cache.lookup('a', () => new Promise<string>((done) => (release = () => done('old A'))));
    state.local += 1;
    assert.equal(await cache.lookup('b', load('B')), 'B');
    release();
    assert.equal(await slow, 'old A');
    assert.equal(await cache.lookup('a', load('new A')), 'new A');
    assert.equal(await cache.lookup('b', load('new B')), 'B');
  });
});
