/**
 * Migration 0018: the audit log. One row per action that changed something, by
 * a panel user or an admin command; read and written by SqlAuditStore only. Searched by
 * account, actor, action and time, newest first, paged by id.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  const serialId =
    dialect === 'postgres' ? sql.raw('id bigserial primary key') : sql.raw('id integer primary key autoincrement');
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table audit_log (
        ${serialId},
        at bigint not null,
        actor text not null,
        actor_user_id integer,
        address text,
        action text not null,
        account_id integer,
        object_type text,
        object_id text,
        detail text
      )`.execute(db);
      await sql`create index audit_log_account on audit_log (account_id, id)`.execute(db);
      await sql`create index audit_log_at on audit_log (at, id)`.execute(db);
      await sql`create index audit_log_action on audit_log (action, id)`.execute(db);
    },
  };
}
