/**
 * Migration 0014: what the customer panel keeps. Its own file so that the
 * migration list gains one line; the tables are read and written by SqlUserStore only.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(dialect: Dialect): Migration {
  const serialId =
    dialect === 'postgres' ? sql.raw('id serial primary key') : sql.raw('id integer primary key autoincrement');
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Panel users: of one account, or of the provider (account_id null). Emails are kept
      // lower-case, so one address is one user whatever its spelling at sign-in.
      await sql`create table panel_users (
        ${serialId},
        account_id integer references accounts(id),
        email text not null unique,
        password_hash text,
        status text not null default 'active',
        created_at bigint not null,
        password_changed_at bigint
      )`.execute(db);
      await sql`create index panel_users_account on panel_users (account_id)`.execute(db);
      // Sessions by the hash of their token: the store never holds a token a thief could use.
      await sql`create table panel_sessions (
        token_hash text primary key,
        user_id integer not null references panel_users(id),
        created_at bigint not null,
        last_seen_at bigint not null
      )`.execute(db);
      await sql`create index panel_sessions_user on panel_sessions (user_id)`.execute(db);
      // Failed sign-ins per subject (an address, or an email) in the current window.
      await sql`create table panel_sign_in_failures (
        subject text primary key,
        window_start bigint not null,
        failures integer not null
      )`.execute(db);
      // One-time set-password links (user create without a password, user reset-password).
      await sql`create table panel_password_tokens (
        token_hash text primary key,
        user_id integer not null references panel_users(id),
        expires_at bigint not null,
        used_at bigint
      )`.execute(db);
      // Why the provider rejected a sender ID, shown to the customer.
      await sql`create table sender_id_reviews (
        sender_id integer primary key,
        reason text not null,
        decided_at bigint not null
      )`.execute(db);
      // When each key last authenticated a request, to the minute (written at most once a
      // minute per key and process, never on the request path itself).
      await sql`create table key_last_used (
        key_id integer primary key,
        used_at bigint not null
      )`.execute(db);
    },
  };
}
