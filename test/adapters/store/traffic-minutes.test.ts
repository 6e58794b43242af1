/**
 * The monitoring part of the store on every dialect: traffic rows written by several
 * sources (threads, processes) sum per minute, a minute written twice by one source adds
 * up, old minutes are dropped; and the backlog counts what is due, later and pending.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection, storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { TrafficCounter } from '../../../src/services/traffic-counter.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';

const minute = 29_000_000;
const at = (m: number, second = 0): number => m * 60_000 + second * 1000;

for (const dialect of testDialects()) {
  describeOn(dialect, `traffic minutes and backlog (${dialect.name})`, () => {
    let store: SqlStore;
    before(async () => {
      const handle = openConnection(await dialect.location());
      await migrate(handle);
      store = storeOn(handle);
    });
    after(async () => {
      await store.close();
      await dialect.cleanup();
    });

    it('sums every source per minute; a source writing a minute twice adds up; old minutes go', async () => {
      let now = at(minute, 10);
      const http = new TrafficCounter(store.monitoring, 'host/1/http/aa', () => now);
      const dispatch = new TrafficCounter(store.monitoring, 'host/1/dispatch/bb', () => now);
      const other = new TrafficCounter(store.monitoring, 'host/2/http/cc', () => now);
      http.messages('accepted', 3);
      other.messages('accepted', 2);
      dispatch.messages('submitted', 4);
      dispatch.messages('delivered', 1);
      await Promise.all([http.flush(), dispatch.flush(), other.flush()]);
      // The same minute again (a flush mid-minute), and the next minute.
      now = at(minute, 50);
      http.messages('accepted', 1);
      dispatch.messages('failed', 2);
      now = at(minute + 1, 5);
      dispatch.messages('expired', 1);
      await Promise.all([http.flush(), dispatch.flush()]);
      assert.deepEqual(await store.monitoring.traffic(minute), [
        { minute, accepted: 6, submitted: 4, delivered: 1, failed: 2, expired: 0 },
        { minute: minute + 1, accepted: 0, submitted: 0, delivered: 0, failed: 0, expired: 1 },
      ]);
      assert.deepEqual(await store.monitoring.traffic(minute + 1), [
        { minute: minute + 1, accepted: 0, submitted: 0, delivered: 0, failed: 0, expired: 1 },
      ]);
      await store.monitoring.forgetTrafficBefore(minute + 1);
      assert.equal((await store.monitoring.traffic(0)).length, 1);
    });

    it('reads an empty backlog on an empty store', async () => {
      assert.deepEqual(await store.monitoring.backlog(Date.now()), {
        dispatchDue: 0,
        scheduled: 0,
        otpHeldPrefixes: 0,
        lanes: { interactive: { due: 0, oldestDueAt: null }, bulk: { due: 0, oldestDueAt: null } },
        accounts: [],
        webhookPending: 0,
        webhookOldestAt: null,
      });
      assert.deepEqual(await store.monitoring.attemptsSince(0, 10), []);
    });
  });
}
