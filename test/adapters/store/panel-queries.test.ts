/**
 * The panel's read queries on every dialect: the rollups the database keeps through its
 * triggers (inserts and state changes, multi-row included), keyset paging of the message
 * log and its filters, campaigns, groups, the blocking list, and that every query is
 * scoped to its account.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection } from '../../../src/adapters/store/open-store.js';
import { storeOn } from '../../../src/adapters/store/open-store.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { AdminService, defaultKeySettings } from '../../../src/services/admin.js';
import { FixedClock } from '../../../src/ports/clock.js';
import { istanbulDay } from '../../../src/domain/istanbul-time.js';
import type { SendKind } from '../../../src/ports/messages.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { valueOf } from '../../helpers/results.js';

interface Fixture {
  store: SqlStore;
  clock: FixedClock;
  a: { accountId: number; keyId: number };
  b: { accountId: number; keyId: number };
  /** Writes a send of `numbers` recipients (message ids returned), created at `at`. */
  send(
    owner: { accountId: number; keyId: number },
    kind: SendKind,
    numbers: string[],
    at: number,
    sender?: string,
  ): Promise<{ sendId: number; ids: number[] }>;
}

for (const dialect of testDialects()) {
  describeOn(dialect, `panel queries (${dialect.name})`, () => {
    async function withStore(work: (f: Fixture) => Promise<void>): Promise<void> {
      const clock = new FixedClock(Date.UTC(2026, 2, 15, 9));
      const handle = openConnection(await dialect.location());
      await migrate(handle);
      const store = storeOn(handle);
      try {
        const admin = new AdminService(store, clock);
        const make = async (name: string): Promise<{ accountId: number; keyId: number }> => {
          const account = await valueOf(
            admin.createAccount({
              name,
              balanceMain: 0,
              balanceInternational: 0,
              perMinuteLimit: 0,
              otpBrand: '',
              ipAllow: [],
              globalSending: false,
            }),
          );
          const key = await valueOf(admin.createKey(account.id, defaultKeySettings));
          return { accountId: account.id, keyId: key.id };
        };
        const a = await make('A');
        const b = await make('B');
        await work({
          store,
          clock,
          a,
          b,
          async send(owner, kind, numbers, at, sender = 'ACME') {
            const [sendId = 0, ...ids] = await store.messages.allocateIds(numbers.length + 1);
            await store.messages.insertSends([
              {
                id: sendId,
                send: {
                  ...owner,
                  kind,
                  sender,
                  text: 'hello',
                  lang: 0,
                  contentType: 0,
                  scheduledAt: null,
                  sandbox: false,
                  totalNumbers: numbers.length,
                  invalidNumbers: 0,
                  blockedNumbers: 0,
                  smsCost: numbers.length * 2,
                  createdAt: at,
                  priority: 0,
                  pendingRecipients: null,
                },
              },
            ]);
            await store.messages.insertMessagesOf([
              {
                send: { id: sendId, ...owner, sandbox: false, createdAt: at, dueAt: at, priority: 0 },
                ids: ids,
                messages: numbers.map((recipient) => ({ recipient, text: null, smsCount: 2, operator: 'TURKCELL' })),
              },
            ]);
            return { sendId, ids };
          },
        });
      } finally {
        await store.close();
      }
    }

    it('keeps daily and per-send counts through inserts and state changes, per account and Istanbul day', async () => {
      await withStore(async (f) => {
        const now = f.clock.now();
        // 20:59 UTC and 21:01 UTC are two Istanbul days (midnight there is 21:00 UTC).
        const lateDay = Date.UTC(2026, 2, 14, 20, 59);
        const nextDay = Date.UTC(2026, 2, 14, 21, 1);
        const first = await f.send(f.a, 'group', ['905321000001', '905321000002', '905321000003'], lateDay);
        await f.send(f.a, 'sms', ['905321000004'], nextDay);
        await f.send(f.b, 'sms', ['905321000005'], nextDay);
        // Claimed, sent and reported through the message store, two in one statement.
        await f.store.queue.claimDue(now, 100, now + 60_000);
        const [x = 0, y = 0, z = 0] = first.ids;
        await f.store.queue.markSentMany(
          [
            { messageId: x, carrier: 't', carrierMessageIds: ['c-x'] },
            { messageId: y, carrier: 't', carrierMessageIds: ['c-y'] },
            { messageId: z, carrier: 't', carrierMessageIds: ['c-z'] },
          ],
          now,
        );
        await f.store.queue.applyReceipts(
          [
            { carrierMessageId: 'c-x', status: 'delivered' },
            { carrierMessageId: 'c-y', status: 'expired' },
          ],
          now,
        );
        // The deriver's round after those commits.
        assert.ok((await f.store.derived.deriveRollups(500, now)).derived > 0);
        const days = await f.store.panel.dailyCounts(f.a.accountId, istanbulDay(lateDay) - 1, istanbulDay(nextDay) + 1);
        assert.deepEqual(days, [
          { day: istanbulDay(lateDay), messages: 3, sms: 6, delivered: 1, failed: 1 },
          { day: istanbulDay(lateDay) + 1, messages: 1, sms: 2, delivered: 0, failed: 0 },
        ]);
        assert.equal(istanbulDay(nextDay), istanbulDay(lateDay) + 1);
        const campaign = await f.store.panel.campaign(f.a.accountId, first.sendId);
        assert.deepEqual(campaign?.counts, { messages: 3, sms: 6, delivered: 1, failed: 1 });
        assert.equal(await f.store.panel.campaign(f.b.accountId, first.sendId), null);
        const bDays = await f.store.panel.dailyCounts(f.b.accountId, 0, istanbulDay(nextDay) + 1);
        assert.deepEqual(
          bDays.map((d) => d.messages),
          [1],
        );
      });
    });

    it('pages the log newest first by keyset, with every filter, and never across accounts', async () => {
      await withStore(async (f) => {
        const base = f.clock.now() - 10 * 86_400_000;
        const numbers = Array.from({ length: 25 }, (_, i) => `9053210${String(i).padStart(5, '0')}`);
        const sends: number[] = [];
        // Five sends of five, a day apart; two messages share each creation time (tie on created_at).
        for (let d = 0; d < 5; d++)
          sends.push(
            (
              await f.send(
                f.a,
                'group',
                numbers.slice(d * 5, d * 5 + 5),
                base + d * 86_400_000,
                d === 4 ? 'OTHER' : 'ACME',
              )
            ).sendId,
          );
        await f.send(f.b, 'sms', ['905321000003'], base);
        const seen: number[] = [];
        let cursor = null;
        for (;;) {
          const page = await f.store.panel.messageLog(f.a.accountId, {}, cursor, 7);
          if (page.length === 0) break;
          seen.push(...page.map((r) => r.id));
          const last = page[page.length - 1];
          assert.ok(last);
          cursor = { createdAt: last.createdAt, id: last.id };
        }
        assert.equal(seen.length, 25);
        assert.deepEqual(
          [...seen].sort((p, q) => q - p),
          seen,
          'newest (highest id) first',
        );
        assert.equal(new Set(seen).size, 25);
        // The number search is the deriver's (migration 0035): empty until it has run.
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { number: '905321000003' }, null, 10)).length, 0);
        assert.ok((await f.store.derived.deriveRollups(500, base)).derived > 0);
        assert.deepEqual(
          (await f.store.panel.messageLog(f.a.accountId, { number: '905321000003' }, null, 10)).length,
          1,
        );
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { sender: 'OTHER' }, null, 50)).length, 5);
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { sendId: sends[1] ?? 0 }, null, 50)).length, 5);
        assert.equal(
          (
            await f.store.panel.messageLog(
              f.a.accountId,
              { from: base + 86_400_000, to: base + 3 * 86_400_000 },
              null,
              50,
            )
          ).length,
          10,
        );
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { outcome: 'pending' }, null, 50)).length, 25);
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { outcome: 'delivered' }, null, 50)).length, 0);
        assert.equal((await f.store.panel.messageLog(f.b.accountId, { sendId: sends[1] ?? 0 }, null, 50)).length, 0);
        const one = await f.store.panel.message(f.a.accountId, seen[0] ?? 0);
        assert.equal(one?.text, 'hello');
        assert.equal(await f.store.panel.message(f.b.accountId, seen[0] ?? 0), null);
      });
    });

    it('searches by number in what the deriver wrote: newest first by keyset, with the filters, never across accounts', async () => {
      await withStore(async (f) => {
        const base = f.clock.now() - 86_400_000;
        const x = '905329990001';
        const mine: number[] = [];
        // Seven sends to one number, a second apart, every other one from another sender; two share a time.
        for (let i = 0; i < 7; i++) {
          const at = base + Math.min(i, 5) * 1000;
          mine.push(
            ...(await f.send(f.a, 'group', [x, `90532999100${i}`], at, i % 2 === 1 ? 'OTHER' : 'ACME')).ids.slice(0, 1),
          );
        }
        await f.send(f.b, 'sms', [x], base);
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { number: x }, null, 10)).length, 0);
        assert.ok((await f.store.derived.deriveRollups(500, base)).derived > 0);
        const seen: number[] = [];
        let cursor = null;
        for (;;) {
          const page = await f.store.panel.messageLog(f.a.accountId, { number: x }, cursor, 3);
          if (page.length === 0) break;
          assert.ok(page.every((r) => r.recipient === x));
          seen.push(...page.map((r) => r.id));
          const last = page[page.length - 1];
          assert.ok(last);
          cursor = { createdAt: last.createdAt, id: last.id };
        }
        assert.deepEqual(
          seen,
          [...mine].sort((p, q) => q - p),
        );
        const other = await f.store.panel.messageLog(f.a.accountId, { number: x, sender: 'OTHER' }, null, 2);
        assert.deepEqual(
          other.map((r) => r.id),
          [mine[5], mine[3]],
        );
        assert.equal(
          (await f.store.panel.messageLog(f.a.accountId, { number: x, from: base + 5000 }, null, 10)).length,
          2,
        );
        assert.equal((await f.store.panel.messageLog(f.b.accountId, { number: x }, null, 10)).length, 1);
        // A later send shows once derived, and nothing is indexed twice.
        const later = await f.send(f.a, 'sms', [x], base + 9000);
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { number: x }, null, 1))[0]?.id, seen[0]);
        await f.store.derived.deriveRollups(500, base);
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { number: x }, null, 1))[0]?.id, later.ids[0]);
        assert.equal((await f.store.panel.messageLog(f.a.accountId, { number: x }, null, 50)).length, 8);
      });
    });

    it('lists campaigns (bulk sends only), pages their rows for export, and scopes groups and the blocking list', async () => {
      await withStore(async (f) => {
        const now = f.clock.now();
        const bulk = await f.send(f.a, 'group', ['905321000001', '905321000002', '905321000003'], now);
        await f.send(f.a, 'sms', ['905321000009'], now);
        const list = await f.store.panel.campaigns(f.a.accountId, null, 10);
        assert.deepEqual(
          list.map((c) => c.id),
          [bulk.sendId],
        );
        assert.deepEqual(await f.store.panel.campaigns(f.b.accountId, null, 10), []);
        const pageOne = await f.store.panel.campaignRows(bulk.sendId, 0, 2);
        const pageTwo = await f.store.panel.campaignRows(bulk.sendId, pageOne[1]?.id ?? 0, 2);
        assert.deepEqual(
          [...pageOne, ...pageTwo].map((r) => r.recipient),
          ['905321000001', '905321000002', '905321000003'],
        );

        const group = await f.store.directory.createGroup(f.a.accountId, 'Friends', now);
        assert.notEqual(group, 'duplicate');
        if (group === 'duplicate') return;
        await f.store.directory.addContacts(f.a.accountId, group.id, ['905321000001', '905321000002'], now);
        assert.deepEqual(
          (await f.store.panel.groups(f.a.accountId)).map((g) => [g.name, g.contacts]),
          [['Friends', 2]],
        );
        assert.deepEqual(await f.store.panel.groups(f.b.accountId), []);
        assert.equal(await f.store.panel.contacts(f.b.accountId, group.id, null, 10), null);
        assert.equal(await f.store.panel.removeContact(f.b.accountId, group.id, '905321000001'), false);
        assert.deepEqual(await f.store.panel.groupNumbers(f.a.accountId, group.id), ['905321000001', '905321000002']);
        assert.equal(await f.store.panel.removeContact(f.a.accountId, group.id, '905321000001'), true);
        assert.deepEqual(
          (await f.store.panel.contacts(f.a.accountId, group.id, null, 10))?.map((c) => c.number),
          ['905321000002'],
        );

        await f.store.directory.blockNumber(f.a.accountId, { number: '905321000007', subscriber: '5321000007' }, now);
        await f.store.directory.blockNumber(f.a.accountId, { number: '905551112233', subscriber: '5551112233' }, now);
        assert.deepEqual(
          (await f.store.panel.blocked(f.a.accountId, '555', null, 10)).map((r) => r.number),
          ['905551112233'],
        );
        assert.deepEqual(
          (await f.store.panel.blocked(f.a.accountId, '', '905321000007', 10)).map((r) => r.number),
          ['905551112233'],
        );
        assert.deepEqual(await f.store.panel.blocked(f.b.accountId, '', null, 10), []);
        assert.deepEqual(
          [...(await f.store.panel.blockedAmong(f.a.accountId, ['5321000007', '5321000008']))],
          ['5321000007'],
        );
        assert.equal((await f.store.panel.blockedAmong(f.b.accountId, ['5321000007'])).size, 0);
      });
    });
  });
}
