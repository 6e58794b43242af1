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
import { openRuntime } from '../../src/main.js';

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
    const other = await openRuntime({ dialect: 'sqlite', file });
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
