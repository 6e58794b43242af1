/**
 * Migration 0065-send-short-links: its name is recorded in every store it ran on, so it never
 * changes.
 *
 * `sends.short_links`: 1 for a send made with `short_links` 1. A bulk send's links are made
 * as its messages are written out (docs/decisions.md, "Short links"), so until then no
 * `short_links` row says it has some; the campaign page reads this.
 */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../store-location.js';

export function migration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('sends')
        .addColumn('short_links', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Sends made before: those with a link row.
      await sql`update sends set short_links = 1 where exists (select 1 from short_links where short_links.send_id = sends.id)`.execute(
        db,
      );
    },
  };
}
