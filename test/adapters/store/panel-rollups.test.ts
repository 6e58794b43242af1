/**
 * The panel's rollups (`daily_counts`, `send_counts`) as the store's writes queue their sums
 * and the deriver adds them (messages/rollups.ts, migrations 0016 and 0035): once derived,
 * after a mixed workload through the store's port
 * (immediate sends, a bulk send written out in chunks, submits accepted, retried and
 * rejected, receipts delivered / failed / expired on single and multi-part messages, early,
 * repeated and late ones), both equal a recount of the messages. And migration 0016 makes a
 * store that ran 0015's triggers consistent.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { withLaterColumns, withoutLaterColumns } from '../../helpers/later-columns.js';
import type { MigrationProvider } from 'kysely';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.js';
import { migration as derivedCounts } from '../../../src/adapters/store/migrations/0035-derived-counts.js';
import { openConnection, storeOn } from '../../../src/adapters/store/open-store.js';
import type { StoreConnection } from '../../../src/adapters/store/connection.js';
import type { SqlStore } from '../../../src/adapters/store/sql-store.js';
import { AdminService, defaultKeySettings } from '../../../src/services/admin.js';
import { FixedClock } from '../../../src/ports/clock.js';
import type { MessageDefaults, NewMessage, SendKind } from '../../../src/ports/messages.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { valueOf } from '../../helpers/results.js';

type Owner = { accountId: number; keyId: number };
type Row = Record<string, number>;

const numbers = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `90532${String(from + i).padStart(7, '0')}`);
const messagesTo = (list: string[], smsCount = 1): NewMessage[] =>
  list.map((recipient) => ({ recipient, text: null, smsCount, operator: 'TURKCELL' }));

/** Both rollups and their recount from the messages, each as sorted plain rows. */
async function rollupsAndRecount(
  handle: StoreConnection,
): Promise<{ daily: Row[]; dailyRecount: Row[]; sends: Row[]; sendsRecount: Row[] }> {
  const sums = sql`count(*) as messages, sum(sms_count) as sms, sum(case when state = 'delivered' then 1 else 0 end) as delivered, sum(case when state in ('failed', 'expired') then 1 else 0 end) as failed`;
  const day = sql`((created_at + 10800000) / 86400000)`;
  const plain = (rows: Record<string, unknown>[]): Row[] =>
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])));
  const q = async (query: ReturnType<typeof sql>): Promise<Row[]> =>
    plain((await query.execute(handle.db)).rows as Record<string, unknown>[]);
  return {
    daily: await q(
      sql`select account_id, day, messages, sms, delivered, failed from daily_counts order by account_id, day`,
    ),
    dailyRecount: await q(
      sql`select account_id, ${day} as day, ${sums} from messages group by account_id, ${day} order by account_id, day`,
    ),
    sends: await q(sql`select send_id, messages, sms, delivered, failed from send_counts order by send_id`),
    sendsRecount: await q(sql`select send_id, ${sums} from messages group by send_id order by send_id`),
  };
}

/** What the deriver does after the commits: every queued sum added, each once. */
async function deriveAll(handle: StoreConnection): Promise<void> {
  const store = storeOn(handle);
  for (;;) {
    const round = await store.derived.deriveRollups(3, 0);
    assert.equal(round.busy, false);
    if (round.derived === 0) break;
  }
  assert.equal(await store.derived.rollupsPending(), 0);
}

async function assertConsistent(handle: StoreConnection): Promise<void> {
  await deriveAll(handle);
  const r = await rollupsAndRecount(handle);
  assert.ok(r.dailyRecount.length > 0);
  assert.deepEqual(r.daily, r.dailyRecount);
  assert.deepEqual(r.sends, r.sendsRecount);
  // The number search holds every message once (bulk chunks, handed and failed ones alike).
  const rows = async (query: ReturnType<typeof sql>): Promise<string[]> =>
    ((await query.execute(handle.db)).rows as Record<string, unknown>[]).map((x) => Object.values(x).join(' '));
  assert.deepEqual(
    await rows(sql`select account_id, recipient, created_at, message_id from message_numbers order by message_id`),
    await rows(sql`select account_id, recipient, created_at, id from messages order by id`),
  );
}

for (const dialect of testDialects()) {
  describeOn(dialect, `panel rollups (${dialect.name})`, () => {
    async function withStore(
      provider: MigrationProvider | null,
      work: (store: SqlStore, handle: StoreConnection, a: Owner, b: Owner, clock: FixedClock) => Promise<void>,
    ): Promise<void> {
      const clock = new FixedClock(Date.UTC(2026, 2, 14, 20, 58));
      const handle = openConnection(await dialect.location());
      await migrate(handle, provider ?? undefined);
      const store = storeOn(handle);
      try {
        const admin = new AdminService(store, clock);
        const make = async (name: string): Promise<Owner> => {
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
        await work(store, handle, await make('A'), await make('B'), clock);
      } finally {
        await store.close();
      }
    }

    async function send(
      store: SqlStore,
      owner: Owner,
      kind: SendKind,
      messages: NewMessage[],
      at: number,
      options: { leaseUntil?: number; pending?: string } = {},
    ): Promise<{ sendId: number; ids: number[] }> {
      const [sendId = 0, ...ids] = await store.messages.allocateIds(
        1 + (options.pending === undefined ? messages.length : 0),
      );
      await store.transaction(async (s) => {
        await s.messages.insertSends([
          {
            id: sendId,
            send: {
              ...owner,
              kind,
              sender: 'ACME',
              text: 'hello',
              lang: 0,
              contentType: 0,
              scheduledAt: null,
              sandbox: false,
              totalNumbers: messages.length,
              invalidNumbers: 0,
              blockedNumbers: 0,
              smsCost: messages.length,
              createdAt: at,
              priority: 0,
              pendingRecipients: options.pending ?? null,
            },
          },
        ]);
        if (options.pending !== undefined) return;
        const defaults: MessageDefaults = {
          id: sendId,
          ...owner,
          sandbox: false,
          createdAt: at,
          dueAt: at,
          priority: 0,
          ...(options.leaseUntil !== undefined ? { leaseUntil: options.leaseUntil } : {}),
        };
        await s.messages.insertMessagesOf([{ send: defaults, ids, messages }]);
      });
      return { sendId, ids };
    }

    /** The mixed workload: leaves messages in every state, across an Istanbul midnight (21:00 UTC). */
    async function workload(
      store: SqlStore,
      handle: StoreConnection,
      a: Owner,
      b: Owner,
      clock: FixedClock,
    ): Promise<void> {
      const t0 = clock.now();
      // Immediate sends: single and multi-part, one with an invalid number failed at once, one handed to the dispatcher at once.
      const single = await send(store, a, 'sms', messagesTo(numbers(1, 1)), t0);
      const multi = await send(store, a, 'sms', messagesTo(numbers(2, 3), 3), t0);
      await send(
        store,
        b,
        'mixed',
        [
          ...messagesTo(numbers(5, 2)),
          { recipient: '123', text: null, smsCount: 1, operator: '', failedDetail: 'invalid number' },
        ],
        t0,
      );
      const handed = await send(store, b, 'sms', messagesTo(numbers(8, 1), 2), t0, { leaseUntil: t0 + 60_000 });
      // A bulk send written out in chunks, the second after Istanbul midnight.
      const bulk = await send(store, a, 'group', messagesTo(numbers(100, 7), 2), t0, { pending: '7 numbers' });
      const due = await store.queue.claimExpansion(t0, t0 + 30_000);
      assert.ok(due && due.id === bulk.sendId);
      assert.equal(await store.queue.expandChunk(due, 0, messagesTo(numbers(100, 4), 2), false, t0), true);
      clock.advance(3 * 60_000);
      const t1 = clock.now();
      const again = await store.queue.claimExpansion(t1, t1 + 30_000);
      assert.ok(again);
      assert.equal(await store.queue.expandChunk(again, 4, messagesTo(numbers(104, 3), 2), true, t1), true);
      await send(store, b, 'sms', messagesTo(numbers(20, 2)), t1);
      await assertConsistent(handle);

      // The dispatcher claims everything due; one claim runs out its lease and is requeued.
      const claimed = (await store.queue.claimDue(t1, 1000, t1 + 60_000)).map((c) => c.id);
      const others = claimed.filter((id) => id !== single.ids[0]);
      const [rejected = 0, retried = 0, ...accepted] = others.filter((id) => !multi.ids.includes(id));
      assert.ok(accepted.length >= 8);
      assert.ok(await store.queue.markFailed(rejected, 'rejected by operator', t1));
      await store.queue.markRetry(retried, t1 + 5_000, 'throttled');
      assert.equal(
        (await store.queue.requeueExpiredLeases(t1 + 120_000)).requeued,
        claimed.length - 2 + 1 /* the handed message's lease too */,
      );
      // Their submit answers come after the requeue: nothing moves to sent, but their parts are known.
      const reclaimed = (await store.queue.claimDue(t1 + 120_000, 1000, t1 + 300_000)).map((c) => c.id);
      assert.ok(reclaimed.includes(single.ids[0] ?? 0));
      // An early receipt (before its submit's answer) for the first multi-part message's first part.
      assert.deepEqual(await store.queue.applyReceipts([{ carrierMessageId: 'm0-1', status: 'delivered' }], t1), [
        'unmatched',
      ]);
      const [m0 = 0, m1 = 0, m2 = 0] = multi.ids;
      await store.queue.markSentMany(
        [
          { messageId: m0, carrier: 't', carrierMessageIds: ['m0-1', 'm0-2', 'm0-3'] },
          { messageId: m1, carrier: 't', carrierMessageIds: ['m1-1', 'm1-2', 'm1-3'] },
          { messageId: m2, carrier: 't', carrierMessageIds: ['m2-1', 'm2-2', 'm2-3'] },
          ...accepted.map((id) => ({ messageId: id, carrier: 't', carrierMessageIds: [`s-${id}`] })),
          { messageId: handed.ids[0] ?? 0, carrier: 't', carrierMessageIds: ['h-1', 'h-2'] },
        ],
        t1,
      );
      await assertConsistent(handle);
      // The single send was requeued and claimed again; its first submit's answer comes late, and then its receipt.
      await store.queue.markSentMany(
        [{ messageId: single.ids[0] ?? 0, carrier: 't', carrierMessageIds: ['late-1'] }],
        t1 + 400_000,
      );
      // Receipts: delivered, failed and expired ones, repeated ones, multi-part messages settled by their last part.
      const [d1 = 0, d2 = 0, f1 = 0, e1 = 0, x1 = 0] = accepted;
      const applied = await store.queue.applyReceipts(
        [
          { carrierMessageId: `s-${d1}`, status: 'delivered' },
          { carrierMessageId: `s-${d2}`, status: 'delivered' },
          { carrierMessageId: `s-${f1}`, status: 'failed', detail: 'no such number' },
          { carrierMessageId: `s-${e1}`, status: 'expired' },
          { carrierMessageId: `s-${d1}`, status: 'failed' },
          { carrierMessageId: 'm0-2', status: 'delivered' },
          { carrierMessageId: 'm0-3', status: 'delivered' },
          { carrierMessageId: 'm1-1', status: 'delivered' },
          { carrierMessageId: 'm1-2', status: 'expired' },
          { carrierMessageId: 'm1-3', status: 'delivered' },
          { carrierMessageId: 'm2-1', status: 'delivered' },
          { carrierMessageId: 'h-1', status: 'delivered' },
          { carrierMessageId: 'h-2', status: 'failed' },
          { carrierMessageId: 'late-1', status: 'delivered' },
          { carrierMessageId: 'nobody', status: 'delivered' },
        ],
        t1 + 500_000,
      );
      assert.equal(applied.filter((t) => t && t !== 'unmatched').length, 8);
      await store.queue.applyReceipts(
        [
          { carrierMessageId: `s-${x1}`, status: 'expired' },
          { carrierMessageId: `s-${d2}`, status: 'expired' },
        ],
        t1 + 600_000,
      );
    }

    it('equal a recount of the messages after a mixed workload', async () => {
      await withStore(null, async (store, handle, a, b, clock) => {
        await workload(store, handle, a, b, clock);
        await assertConsistent(handle);
        const r = await rollupsAndRecount(handle);
        // The workload crossed Istanbul midnight and moved messages into every counted state.
        assert.ok(r.daily.filter((d) => d.account_id === a.accountId).length === 2);
        assert.ok(r.daily.some((d) => (d.delivered ?? 0) > 0) && r.daily.some((d) => (d.failed ?? 0) > 0));
      });
    });

    it('migration 0016 recounts a store that ran 0015 (and drops its triggers)', async () => {
      const through0015: MigrationProvider = {
        async getMigrations() {
          const all = await migrationProvider(dialect.name).getMigrations();
          return Object.fromEntries(Object.entries(all).filter(([name]) => name < '0016'));
        },
      };
      const location = await dialect.location();
      const first = openConnection(location);
      await migrate(first, through0015);
      const clock = new FixedClock(Date.UTC(2026, 2, 14, 20, 58));
      const store = storeOn(first);
      await withLaterColumns(first.db);
      const admin = new AdminService(store, clock);
      const account = await valueOf(
        admin.createAccount({
          name: 'A',
          balanceMain: 0,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      const key = await valueOf(admin.createKey(account.id, defaultKeySettings));
      // This build writes sends.iys, which migration 0024 adds: the 0015 store has it for these
      // writes only, and loses it again before the real migrations run.
      await sql`ALTER TABLE sends ADD COLUMN iys TEXT`.execute(first.db);
      // And sends.control (a campaign's pause or cancel), which migration 0057 adds.
      await sql`ALTER TABLE sends ADD COLUMN control TEXT`.execute(first.db);
      // Likewise the queue of sums and the number search (0035), for these writes and their
      // derivation; undone below as well.
      await derivedCounts(dialect.name).up(first.db);
      // This build's writes and 0015's triggers both count these: the rollups are off until 0016.
      await send(store, { accountId: account.id, keyId: key.id }, 'sms', messagesTo(numbers(1, 3), 2), clock.now());
      await deriveAll(first);
      const before = await rollupsAndRecount(first);
      assert.notDeepEqual(before.sends, before.sendsRecount);
      await sql`ALTER TABLE sends DROP COLUMN iys`.execute(first.db);
      await sql`ALTER TABLE sends DROP COLUMN control`.execute(first.db);
      await withoutLaterColumns(first.db);
      await sql`DROP TABLE count_deltas`.execute(first.db);
      await sql`DROP TABLE derivations`.execute(first.db);
      await sql`DROP TABLE message_numbers`.execute(first.db);
      await sql`CREATE INDEX messages_account_number ON messages (account_id, recipient, created_at, id)`.execute(
        first.db,
      );
      await migrate(first);
      await assertConsistent(first);
      await send(store, { accountId: account.id, keyId: key.id }, 'sms', messagesTo(numbers(4, 2)), clock.now());
      await assertConsistent(first);
      await store.close();
    });
  });
}
