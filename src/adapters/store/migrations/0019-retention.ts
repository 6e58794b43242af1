/**
 * Migration 0019 (retention).
 *
 * Both dialects: the two tables without time-ordered ids that retention empties of old rows
 * get an index on their time, so that a batch of old rows is found without reading the whole
 * table. (Messages, sends, webhook events and inbound messages are walked by their ids, which
 * grow with time: no index needed.)
 *
 * PostgreSQL: `messages` becomes a table partitioned by RANGE (id), so that retention drops
 * old messages a partition at a time (postgres/partitions.ts). Ids grow with time, and the
 * partition key is the primary key, so `PRIMARY KEY (id)` and the foreign key to `sends`
 * stay as they were. The table is renamed and attached whole as the first partition (one
 * validating scan, no copy); its indexes and triggers, whatever earlier migrations made, are
 * made again on the partitioned table under their names (the renamed indexes are attached). A
 * DEFAULT partition takes ids no partition covers yet: partitions ahead of the id sequence
 * are made by retention's sweeps.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

async function partitionMessages(db: Kysely<unknown>): Promise<void> {
  await sql`lock table messages in access exclusive mode`.execute(db);
  const { rows: indexes } = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes
    where schemaname = current_schema() and tablename = 'messages' and indexname <> 'messages_pkey'
    order by indexname`.execute(db);
  const { rows: foreign } = await sql<{ conname: string; def: string }>`
    select conname, pg_get_constraintdef(oid) as def from pg_constraint
    where conrelid = 'messages'::regclass and contype = 'f' order by conname`.execute(db);
  // Triggers too (none in this build's migrations; one a later or parallel migration put on
  // messages must fire for the partitioned table, not only for its first partition).
  const { rows: triggers } = await sql<{ tgname: string; def: string }>`
    select tgname, pg_get_triggerdef(oid) as def from pg_trigger
    where tgrelid = 'messages'::regclass and not tgisinternal order by tgname`.execute(db);
  await sql`alter table messages rename to messages_p0`.execute(db);
  for (const { tgname } of triggers) await sql`drop trigger ${sql.id(tgname)} on messages_p0`.execute(db);
  await sql`alter table messages_p0 rename constraint messages_pkey to messages_p0_pkey`.execute(db);
  for (const { indexname } of indexes)
    await sql`alter index ${sql.id(indexname)} rename to ${sql.id(`${indexname}_p0`)}`.execute(db);
  // The partitioned table holds the foreign keys; the partition gets them from it.
  for (const { conname } of foreign) await sql`alter table messages_p0 drop constraint ${sql.id(conname)}`.execute(db);
  await sql`create table messages (like messages_p0 including defaults including constraints) partition by range (id)`.execute(
    db,
  );
  await sql`alter table messages add constraint messages_pkey primary key (id)`.execute(db);
  for (const { conname, def } of foreign)
    await sql`alter table messages add constraint ${sql.id(conname)} ${sql.raw(def)}`.execute(db);
  // pg_indexes gives each definition on the table's name, which is now the partitioned table's.
  for (const { indexdef } of indexes) await sql.raw(indexdef).execute(db);
  for (const { def } of triggers) await sql.raw(def).execute(db);
  const { rows } = await sql<{ bound: string }>`
    select (greatest(coalesce((select max(id) from messages_p0), 0), (select last_value from haberci_ids)) + 1)::text as bound`.execute(
    db,
  );
  const bound = rows[0]?.bound ?? '1';
  await sql`alter table messages attach partition messages_p0 for values from (minvalue) to (${sql.raw(String(BigInt(bound)))})`.execute(
    db,
  );
  await sql`create table messages_pdefault partition of messages default`.execute(db);
}

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('idempotency_keys_time').on('idempotency_keys').column('created_at').execute();
      await db.schema.createIndex('unmatched_reports_time').on('unmatched_reports').column('received_at').execute();
      if (dialect === 'postgres') await partitionMessages(db);
    },
  };
}
