/**
 * Migration 0015: what the panel's data pages read fast on a store of millions of
 * messages. Two small rollups kept by the database itself, so that no writer of messages
 * (send writer, expander, dispatcher, receipts, another process, a hand-run sqlite3) can
 * forget them: `daily_counts` per account and Istanbul day of creation, `send_counts` per
 * send. Each holds messages, SMS parts, delivered and failed (failed or expired); pending
 * is the rest. Plus the indexes of the message log (keyset by creation time and id, by
 * number) and of the campaign list.
 *
 * Istanbul has kept UTC+3 all year since 2016, so a day is (created_at + 3 h) / 1 day in
 * integer arithmetic in both dialects; istanbulDay() (src/domain/istanbul-time.ts) gives the same day while the offset stays.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
/** Istanbul's offset and a day when this migration was written (UTC+3 all year since 2016): a migration keeps the rule it ran with. */
const istanbulOffsetMs = 3 * 3_600_000;
const dayMs = 86_400_000;

const dayOf = (ref: string): string => `((${ref}.created_at + ${istanbulOffsetMs}) / ${dayMs})`;
const delivered = (ref: string, cast: string): string => `(${ref}.state = 'delivered')${cast}`;
const failed = (ref: string, cast: string): string => `(${ref}.state in ('failed', 'expired'))${cast}`;

async function createTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('daily_counts')
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('messages', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sms', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('daily_counts_pk', ['account_id', 'day'])
    .execute();
  await db.schema
    .createTable('send_counts')
    .addColumn('send_id', 'bigint', (c) => c.primaryKey())
    .addColumn('messages', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sms', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // Messages already stored are counted once, here.
  await sql
    .raw(
      `insert into daily_counts (account_id, day, messages, sms, delivered, failed)
       select m.account_id, ${dayOf('m')}, count(*), sum(m.sms_count), sum(case when m.state = 'delivered' then 1 else 0 end), sum(case when m.state in ('failed', 'expired') then 1 else 0 end)
       from messages m group by m.account_id, ${dayOf('m')}`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into send_counts (send_id, messages, sms, delivered, failed)
       select m.send_id, count(*), sum(m.sms_count), sum(case when m.state = 'delivered' then 1 else 0 end), sum(case when m.state in ('failed', 'expired') then 1 else 0 end)
       from messages m group by m.send_id`,
    )
    .execute(db);
}

/** SQLite: row triggers (one writer at a time, so no lock order to care about). */
async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `create trigger messages_counts_insert after insert on messages begin
         insert into daily_counts (account_id, day, messages, sms, delivered, failed)
           values (new.account_id, ${dayOf('new')}, 1, new.sms_count, ${delivered('new', '')}, ${failed('new', '')})
           on conflict (account_id, day) do update set messages = messages + 1, sms = sms + excluded.sms, delivered = delivered + excluded.delivered, failed = failed + excluded.failed;
         insert into send_counts (send_id, messages, sms, delivered, failed)
           values (new.send_id, 1, new.sms_count, ${delivered('new', '')}, ${failed('new', '')})
           on conflict (send_id) do update set messages = messages + 1, sms = sms + excluded.sms, delivered = delivered + excluded.delivered, failed = failed + excluded.failed;
       end`,
    )
    .execute(db);
  const moved = `(${delivered('old', '')} <> ${delivered('new', '')} or ${failed('old', '')} <> ${failed('new', '')})`;
  await sql
    .raw(
      `create trigger messages_counts_state after update of state on messages when ${moved} begin
         update daily_counts set delivered = delivered + ${delivered('new', '')} - ${delivered('old', '')}, failed = failed + ${failed('new', '')} - ${failed('old', '')}
           where account_id = new.account_id and day = ${dayOf('new')};
         update send_counts set delivered = delivered + ${delivered('new', '')} - ${delivered('old', '')}, failed = failed + ${failed('new', '')} - ${failed('old', '')}
           where send_id = new.send_id;
       end`,
    )
    .execute(db);
}

/**
 * PostgreSQL: statement triggers over transition tables, so a multi-row insert or update
 * touches each rollup row once, in key order (concurrent writers lock them in one order).
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const i = '::int';
  await sql
    .raw(
      `create function panel_counts_insert() returns trigger language plpgsql as $$
       begin
         insert into daily_counts (account_id, day, messages, sms, delivered, failed)
           select n.account_id, ${dayOf('n')}, count(*), sum(n.sms_count), sum(${delivered('n', i)}), sum(${failed('n', i)})
           from new_rows n group by 1, 2 order by 1, 2
           on conflict (account_id, day) do update set messages = daily_counts.messages + excluded.messages, sms = daily_counts.sms + excluded.sms,
             delivered = daily_counts.delivered + excluded.delivered, failed = daily_counts.failed + excluded.failed;
         insert into send_counts (send_id, messages, sms, delivered, failed)
           select n.send_id, count(*), sum(n.sms_count), sum(${delivered('n', i)}), sum(${failed('n', i)})
           from new_rows n group by 1 order by 1
           on conflict (send_id) do update set messages = send_counts.messages + excluded.messages, sms = send_counts.sms + excluded.sms,
             delivered = send_counts.delivered + excluded.delivered, failed = send_counts.failed + excluded.failed;
         return null;
       end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger messages_counts_insert after insert on messages referencing new table as new_rows for each statement execute function panel_counts_insert()`,
    )
    .execute(db);
  const change = `sum(${delivered('n', i)} - ${delivered('o', i)}) as d, sum(${failed('n', i)} - ${failed('o', i)}) as f`;
  await sql
    .raw(
      `create function panel_counts_state() returns trigger language plpgsql as $$
       begin
         update daily_counts c set delivered = c.delivered + x.d, failed = c.failed + x.f
           from (select n.account_id, ${dayOf('n')} as day, ${change} from new_rows n join old_rows o on o.id = n.id group by 1, 2 order by 1, 2) x
           where c.account_id = x.account_id and c.day = x.day and (x.d <> 0 or x.f <> 0);
         update send_counts c set delivered = c.delivered + x.d, failed = c.failed + x.f
           from (select n.send_id, ${change} from new_rows n join old_rows o on o.id = n.id group by 1 order by 1) x
           where c.send_id = x.send_id and (x.d <> 0 or x.f <> 0);
         return null;
       end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger messages_counts_state after update on messages referencing old table as old_rows new table as new_rows for each statement execute function panel_counts_state()`,
    )
    .execute(db);
}

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await createTables(db);
      // A contact's name, set by the panel's CSV import; the API's /contacts/add has none.
      await db.schema.alterTable('contacts').addColumn('name', 'text').execute();
      if (dialect === 'sqlite') await sqliteTriggers(db);
      else await postgresTriggers(db);
      // The message log: an account's messages newest first, keyset by (created_at, id), a
      // date range as a range of the same index; and the same per number.
      await db.schema
        .createIndex('messages_account_log')
        .on('messages')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('messages_account_number')
        .on('messages')
        .columns(['account_id', 'recipient', 'created_at', 'id'])
        .execute();
      // The campaign list: an account's bulk sends, without reading its single sends.
      await db.schema
        .createIndex('sends_account_campaigns')
        .on('sends')
        .columns(['account_id', 'id'])
        .where(sql<boolean>`kind in ('group', 'mixed')`)
        .execute();
    },
  };
}
