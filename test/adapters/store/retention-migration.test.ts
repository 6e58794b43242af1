/**
 * Migration 0019 on a store that already holds messages (made by the migrations before it):
 * every row is kept and read as before; on PostgreSQL the old table becomes the first
 * partition of `messages` whole, the foreign key to `sends` still holds, and new rows go on
 * being written.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely';
import { migrate } from '../../../src/adapters/store/migrate.js';
import { openConnection, storeOn } from '../../../src/adapters/store/open-store.js';
import { migrationProvider } from '../../../src/adapters/store/migrations/index.js';
import { defaultKeySettings } from '../../../src/services/admin.js';
import { withLaterColumns, withoutLaterColumns } from '../../helpers/later-columns.js';
import { describeOn, testDialects } from '../../helpers/dialects.js';

const now = Date.UTC(2026, 2, 15, 9, 0, 0);

/** This build's migrations before 0019. */
function before0019(dialect: 'sqlite' | 'postgres'): MigrationProvider {
  return {
    getMigrations: async (): Promise<Record<string, Migration>> =>
      Object.fromEntries(
        Object.entries(await migrationProvider(dialect).getMigrations()).filter(([name]) => name < '0019'),
      ),
  };
}

for (const dialect of testDialects()) {
  describeOn(dialect, `migration 0019 on a store with messages (${dialect.name})`, () => {
    const dirs: string[] = [];
    after(async () => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await dialect.cleanup();
    });

    it('keeps every message, readable as before, and takes new ones', async () => {
      let location = await dialect.location();
      if (location.dialect === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'haberci-m0019-'));
        dirs.push(dir);
        location = { dialect: 'sqlite', file: join(dir, 'store.sqlite') };
      }
      const connection = openConnection(location);
      try {
        await migrate(connection, before0019(dialect.name));
        const older = storeOn(connection);
        await withLaterColumns(connection.db);
        const account = await older.accounts.createAccount(
          {
            name: 'Before',
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          },
          now,
        );
        const key = await older.keys.createKey(account.id, 'hash-0019', 'hint', defaultKeySettings, now);
        const db = connection.db;
        const ids = await (async () => {
          const allocated: number[] = [];
          for (let i = 0; i < 3; i++) {
            const [sendId, messageId] = await (dialect.name === 'postgres'
              ? sql<{ id: string }>`select nextval('haberci_ids') as id from generate_series(1, 2)`
                  .execute(db)
                  .then((r) => r.rows.map((x) => Number(x.id)))
              : Promise.resolve([100 + 2 * i, 101 + 2 * i]));
            if (sendId === undefined || messageId === undefined) throw new Error('no ids');
            await sql`insert into sends (id, account_id, key_id, kind, sender, text, lang, content_type, scheduled_at, sandbox, total_numbers, sms_cost, created_at, updated_at)
              values (${sendId}, ${account.id}, ${key.id}, 'sms', 'ACME', 'kept', 0, 0, null, 0, 1, 1, ${now}, ${now})`.execute(
              db,
            );
            await sql`insert into messages (id, send_id, account_id, key_id, recipient, text, sms_count, operator, state, priority, due_at, sandbox, created_at)
              values (${messageId}, ${sendId}, ${account.id}, ${key.id}, ${`90532111000${i}`}, null, 1, 'TURKCELL', 'delivered', 0, ${now}, 0, ${now})`.execute(
              db,
            );
            allocated.push(messageId);
          }
          return allocated;
        })();

        await withoutLaterColumns(connection.db);
        if (dialect.name === 'postgres') {
          // A trigger on messages (as a later or parallel migration could add) fires for the partitioned table after 0019.
          await sql`create table trigger_hits (n integer not null)`.execute(db);
          await sql`insert into trigger_hits (n) values (0)`.execute(db);
          await sql
            .raw(
              `create function bump_hits() returns trigger language plpgsql as $$ begin update trigger_hits set n = n + 1; return new; end $$`,
            )
            .execute(db);
          await sql`create trigger messages_bump after insert on messages for each row execute function bump_hits()`.execute(
            db,
          );
        }
        await migrate(connection);
        const store = storeOn(connection);
        assert.equal((await store.health()).migrated, true);
        for (const [i, id] of ids.entries()) {
          const message = await store.reports.findMessage(id, account.id);
          assert.equal(message?.recipient, `90532111000${i}`, `message ${id} kept`);
          assert.equal(message?.state, 'delivered');
        }
        if (dialect.name === 'postgres') {
          const { rows } = await sql<{
            holder: string;
            n: string;
          }>`select tableoid::regclass::text as holder, count(*)::text as n from messages group by 1`.execute(db);
          assert.deepEqual(
            rows.map((r) => [r.holder.replace(/^.*\./, ''), Number(r.n)]),
            [['messages_p0', 3]],
          );
          // The foreign key to sends holds on the partitioned table.
          await assert.rejects(
            sql`insert into messages (id, send_id, account_id, key_id, recipient, sms_count, operator, state, priority, due_at, sandbox, created_at)
              values (nextval('haberci_ids'), 999999999, ${account.id}, ${key.id}, '905321110009', 1, 'TURKCELL', 'queued', 0, ${now}, 0, ${now})`.execute(
              db,
            ),
            /foreign key/,
          );
        }
        // New sends are written and read after it, through the store.
        const [sendId, messageId] = await store.transaction((s) => s.messages.allocateIds(2));
        assert.ok(sendId !== undefined && messageId !== undefined);
        await sql`insert into sends (id, account_id, key_id, kind, sender, text, lang, content_type, scheduled_at, sandbox, total_numbers, sms_cost, created_at, updated_at)
          values (${sendId}, ${account.id}, ${key.id}, 'sms', 'ACME', 'new', 0, 0, null, 0, 1, 1, ${now}, ${now})`.execute(
          db,
        );
        await sql`insert into messages (id, send_id, account_id, key_id, recipient, text, sms_count, operator, state, priority, due_at, sandbox, created_at)
          values (${messageId}, ${sendId}, ${account.id}, ${key.id}, '905321110008', null, 1, 'TURKCELL', 'queued', 0, ${now}, 0, ${now})`.execute(
          db,
        );
        assert.equal((await store.reports.findMessage(messageId, account.id))?.recipient, '905321110008');
        if (dialect.name === 'postgres')
          assert.equal(
            Number((await sql<{ n: number }>`select n from trigger_hits`.execute(db)).rows[0]?.n),
            1,
            'the trigger fired once, for the new message',
          );
      } finally {
        await connection.close();
      }
    });
  });
}
