/**
 * Migration 0016: the panel's rollups (`daily_counts`, `send_counts`, migration
 * 0015) are kept by the store's writes of messages, a batch at a time
 * (adapters/store/messages/rollups.ts), no longer by 0015's triggers: a row trigger per
 * message on SQLite and a statement trigger on every update of messages on PostgreSQL cost
 * an accepted /sms/send about 12 % more server CPU. The triggers go; the tables and indexes
 * stay, and both rollups are counted again from the messages once, so that a store is
 * consistent whatever ran on it before.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
/** Istanbul's offset and a day when this migration was written (UTC+3 all year since 2016): a migration keeps the rule it ran with. */
const istanbulOffsetMs = 3 * 3_600_000;
const dayMs = 86_400_000;

const day = `((m.created_at + ${istanbulOffsetMs}) / ${dayMs})`;
const sums = `count(*), sum(m.sms_count), sum(case when m.state = 'delivered' then 1 else 0 end), sum(case when m.state in ('failed', 'expired') then 1 else 0 end)`;

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') {
        await sql.raw('drop trigger if exists messages_counts_insert').execute(db);
        await sql.raw('drop trigger if exists messages_counts_state').execute(db);
      } else {
        await sql.raw('drop trigger if exists messages_counts_insert on messages').execute(db);
        await sql.raw('drop trigger if exists messages_counts_state on messages').execute(db);
        await sql.raw('drop function if exists panel_counts_insert()').execute(db);
        await sql.raw('drop function if exists panel_counts_state()').execute(db);
      }
      await sql.raw('delete from daily_counts').execute(db);
      await sql.raw('delete from send_counts').execute(db);
      await sql
        .raw(
          `insert into daily_counts (account_id, day, messages, sms, delivered, failed) select m.account_id, ${day}, ${sums} from messages m group by m.account_id, ${day}`,
        )
        .execute(db);
      await sql
        .raw(
          `insert into send_counts (send_id, messages, sms, delivered, failed) select m.send_id, ${sums} from messages m group by m.send_id`,
        )
        .execute(db);
    },
  };
}
