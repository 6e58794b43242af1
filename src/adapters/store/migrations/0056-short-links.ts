/**
 * Migration 0056-short-links: its name is recorded in every store it ran on, so it never
 * changes.
 *
 * `short_links`: one row per URL per recipient of a send with `short_links` 1, written in
 * the send's transaction; its clicks counted on the row (the first click's time kept), and
 * each click a row of `link_clicks` (its time, nothing about who clicked) for the counts over
 * time (docs/decisions.md, "Short links").
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';
import { withId } from './with-id.js';

export function migration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('short_links')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('send_id', 'bigint', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('first_clicked_at', 'bigint')
        .execute();
      await db.schema.createIndex('short_links_send').on('short_links').columns(['send_id', 'recipient']).execute();
      await withId(db.schema.createTable('link_clicks'), dialect)
        .addColumn('send_id', 'bigint', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('clicked_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('link_clicks_send').on('link_clicks').columns(['send_id', 'clicked_at']).execute();
    },
  };
}
