/**
 * Migration 0030: customers over SMPP, continued. `smpp_part_receipts`: the receipts owed
 * for the parts of a concatenated submit other than the one that completed it (each part
 * was answered with a message_id of its own; the receipt for it carries that id), or for
 * the parts of an assembly given up (never completed, or refused when complete).
 * `smpp_assemblies` and `smpp_assembly_parts`: the parts of concatenated submits not yet
 * all received, in the store so that parts sent through binds to different processes, or
 * across a restart, still make one message. `smpp_mo_sent`: the inbound (MO) messages of an account given to one of its SMPP
 * receivers and acknowledged by deliver_sm_resp (docs/smpp.md, "Customers over SMPP").
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('smpp_part_receipts')
        .addColumn('part_id', 'text', (c) => c.primaryKey())
        .addColumn('smpp_user_id', 'integer', (c) => c.notNull())
        // The assembled message; null when the assembly was given up (failed_at set).
        .addColumn('message_id', 'bigint')
        .addColumn('source_addr', 'text', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('failed_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('sent_at', 'bigint')
        .execute();
      await sql`create index smpp_part_receipts_owed on smpp_part_receipts (smpp_user_id, created_at) where sent_at is null`.execute(
        db,
      );
      await db.schema.createIndex('smpp_part_receipts_created').on('smpp_part_receipts').column('created_at').execute();
      // Concatenated submits being put together: one row per unfinished message (its parts
      // counted, so the process adding the last part knows it, whichever process that is),
      // and one per part received (its payload in hex).
      await db.schema
        .createTable('smpp_assemblies')
        .addColumn('smpp_user_id', 'integer', (c) => c.notNull())
        .addColumn('assembly_key', 'text', (c) => c.notNull())
        .addColumn('parts', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('smpp_assemblies_pk', ['smpp_user_id', 'assembly_key'])
        .execute();
      await db.schema.createIndex('smpp_assemblies_started').on('smpp_assemblies').column('started_at').execute();
      await db.schema
        .createTable('smpp_assembly_parts')
        .addColumn('smpp_user_id', 'integer', (c) => c.notNull())
        .addColumn('assembly_key', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('total', 'integer', (c) => c.notNull())
        .addColumn('source_addr', 'text', (c) => c.notNull())
        .addColumn('destination', 'text', (c) => c.notNull())
        .addColumn('data_coding', 'integer', (c) => c.notNull())
        .addColumn('payload_hex', 'text', (c) => c.notNull())
        .addColumn('turkish', 'integer', (c) => c.notNull())
        .addColumn('part_id', 'text', (c) => c.notNull())
        .addColumn('receipt', 'integer', (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('smpp_assembly_parts_pk', ['smpp_user_id', 'assembly_key', 'seq'])
        .execute();
      await db.schema
        .createTable('smpp_mo_sent')
        .addColumn('inbound_id', 'bigint', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('sent_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
