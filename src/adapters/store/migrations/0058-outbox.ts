/**
 * Migration 0058-outbox: its name is recorded in every store it ran on, so it never changes.
 *
 * `outbox`: one row for every consequence of a commit that a consumer carries out later,
 * written in the transaction of that commit (docs/decisions.md, "One outbox"). Its kinds so
 * far: `smpp.receipt` (a receipt owed to an SMPP user for a message it submitted with
 * registered_delivery; `ref_id` the message), `smpp.part-receipt` (the same for a part of a
 * concatenated submit answered with its own id, `subject`; `ref_id` the assembled message,
 * null with `failed_at` when it never made one) and `smpp.mo` (an inbound message owed to
 * the account's SMPP receivers; `ref_id` the inbound row). `owner_id` is whom it is owed to
 * (the SMPP user; the account for MO). A consumer takes a row by writing its name in
 * `holder` and a lease in `lease_until`; a row whose lease ran out (its holder died, or its
 * customer never answered) is due again; a row carried out is deleted.
 *
 * The rows of `smpp_receipts`, `smpp_part_receipts` not acknowledged, and the MO not yet
 * given (no `smpp_mo_sent` row) of accounts with an SMPP user, move here; the three tables go.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('outbox'), dialect)
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'integer', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('ref_id', 'bigint')
        .addColumn('source_addr', 'text')
        .addColumn('recipient', 'text')
        .addColumn('failed_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('holder', 'text')
        .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('outbox_subject', ['kind', 'subject'])
        .execute();
      // What is owed to one owner, oldest first (a consumer's claim).
      await db.schema.createIndex('outbox_owed').on('outbox').columns(['kind', 'owner_id', 'id']).execute();
      await db.schema.createIndex('outbox_created').on('outbox').column('created_at').execute();
      await sql`insert into outbox (kind, owner_id, subject, ref_id, source_addr, created_at)
        select 'smpp.receipt', r.smpp_user_id, cast(r.message_id as text), r.message_id, r.source_addr, r.created_at
        from smpp_receipts r where r.sent_at is null order by r.message_id`.execute(db);
      await sql`insert into outbox (kind, owner_id, subject, ref_id, source_addr, recipient, failed_at, created_at)
        select 'smpp.part-receipt', smpp_user_id, part_id, message_id, source_addr, recipient, failed_at, created_at
        from smpp_part_receipts where sent_at is null order by created_at, part_id`.execute(db);
      await sql`insert into outbox (kind, owner_id, subject, ref_id, created_at)
        select 'smpp.mo', i.account_id, cast(i.id as text), i.id, i.received_at
        from inbound_messages i
        where i.account_id is not null
          and i.received_at >= (select min(u.created_at) from smpp_users u where u.account_id = i.account_id)
          and not exists (select 1 from smpp_mo_sent s where s.inbound_id = i.id)
        order by i.id`.execute(db);
      await db.schema.dropTable('smpp_receipts').execute();
      await db.schema.dropTable('smpp_part_receipts').execute();
      await db.schema.dropTable('smpp_mo_sent').execute();
    },
  };
}
