import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { FixedClock } from '../../../src/ports/clock.js';
import { AuditLog, safeDetail } from '../../../src/services/audit-log.js';

const day = Date.UTC(2026, 2, 15, 9, 0, 0);

it('keeps no particular that could be a secret: names of secrets, API keys, long tokens', () => {
  assert.equal(
    safeDetail({
      amount: 5,
      reason: 'refund',
      webhook_secret: 's3cret',
      password: 'pw',
      api_key: 'x',
      token: 't',
      note: 'hb_live_abcdef',
      blob: 'A'.repeat(40),
      gone: undefined,
    }),
    JSON.stringify({ amount: 5, reason: 'refund' }),
  );
  assert.equal(safeDetail({ password: 'pw' }), null);
  assert.equal(safeDetail(undefined), null);
});

for (const dialect of testDialects()) {
  describeOn(dialect, `audit store (${dialect.name})`, () => {
    let app: AppContainer;
    let clock: FixedClock;
    let log: AuditLog;
    before(async () => {
      clock = new FixedClock(day);
      app = await openAppContainer(await dialect.location(), clock);
      log = new AuditLog(app.store, clock);
      const rows: [string, string, number | null, number][] = [
        ['a@example.com', 'key.create', 1, 0],
        ['b@example.com', 'key.pause', 2, 1],
        ['cli', 'account.topup', 1, 2],
        ['100%_user@example.com', 'account.suspend', 3, 3],
      ];
      for (const [actor, action, accountId, days] of rows) {
        clock.set(day + days * 86_400_000);
        await log.record(
          actor === 'cli'
            ? { kind: 'cli', osUser: 'ops' }
            : { kind: 'user', userId: 7, email: actor, address: '192.0.2.1' },
          { action, accountId, object: { type: 'thing', id: days } },
        );
      }
    });
    after(() => app.close());

    const actions = async (query: Parameters<AuditLog['search']>[0], limit?: number) =>
      (await log.search(query, limit)).entries.map((e) => e.action);

    it('finds entries by account, actor (contains, any case), action (its start) and dates, newest first', async () => {
      assert.deepEqual(await actions({}), ['account.suspend', 'account.topup', 'key.pause', 'key.create']);
      assert.deepEqual(await actions({ accountId: 1 }), ['account.topup', 'key.create']);
      assert.deepEqual(await actions({ actor: 'B@EXAMPLE' }), ['key.pause']);
      assert.deepEqual(await actions({ actor: 'cli' }), ['account.topup']);
      assert.deepEqual(await actions({ action: 'key.' }), ['key.pause', 'key.create']);
      assert.deepEqual(await actions({ from: day + 86_400_000, to: day + 3 * 86_400_000 }), [
        'account.topup',
        'key.pause',
      ]);
      // LIKE's wildcards in a search are plain text.
      assert.deepEqual(await actions({ actor: '%_' }), ['account.suspend']);
      assert.deepEqual(await actions({ action: '%' }), []);
      const [cli] = (await log.search({ actor: 'cli' })).entries;
      assert.deepEqual(
        [cli?.actorUserId, cli?.address, cli?.objectType, cli?.objectId, cli?.at],
        [null, 'ops', 'thing', '2', day + 2 * 86_400_000],
      );
    });

    it('pages by key: each page\u2019s next cursor leads to the older entries, the last page has none', async () => {
      const first = await log.search({}, 3);
      assert.deepEqual(
        first.entries.map((e) => e.action),
        ['account.suspend', 'account.topup', 'key.pause'],
      );
      assert.notEqual(first.next, null);
      const second = await log.search({ before: first.next ?? 0 }, 3);
      assert.deepEqual(
        second.entries.map((e) => e.action),
        ['key.create'],
      );
      assert.equal(second.next, null);
    });
  });
}
