/** Migration 0012-unique-sender-ids: its name is recorded in every store it ran on, so it never changes. */
import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

export function migration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // A title is one sender ID per account. Earlier duplicates are folded into the row
      // that decided sends: an approved one if any (a send needs only one), else the
      // oldest; the others are deleted, so what every send is answered stays the same.
      await sql`
        delete from sender_ids where exists (
          select 1 from sender_ids better
          where better.account_id = sender_ids.account_id and better.title = sender_ids.title and better.id <> sender_ids.id
            and (case when better.status = 'approved' then 0 else 1 end, better.id) < (case when sender_ids.status = 'approved' then 0 else 1 end, sender_ids.id)
        )`.execute(db);
      // The unique index serves the approval lookup by (account_id, title) as the old one did.
      await db.schema.dropIndex('sender_ids_account').execute();
      await db.schema
        .createIndex('sender_ids_account_title')
        .unique()
        .on('sender_ids')
        .columns(['account_id', 'title'])
        .execute();
    },
  };
}
