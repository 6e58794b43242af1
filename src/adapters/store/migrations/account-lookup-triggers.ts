import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../store-location.js';

/**
 * Makes again the trigger that tells other connections an account's cached lookups changed
 * (SQLite's of 0008/0010, PostgreSQL's of 0021), watching `watched`: a migration that adds a
 * column a lookup reads calls it with the column in the list. The statements are part of
 * each caller's recorded history (test/adapters/store/migration-history.test.ts), so this
 * never changes either.
 */
export async function watchAccountLookups(db: Kysely<unknown>, dialect: Dialect, watched: string): Promise<void> {
  if (dialect === 'sqlite') {
    await sql`drop trigger accounts_update_lookup_version`.execute(db);
    await sql
      .raw(
        `create trigger accounts_update_lookup_version after update of ${watched} on accounts begin update lookup_version set n = n + 1 where id = 1; end`,
      )
      .execute(db);
  } else {
    await sql`drop trigger accounts_lookups_changed on accounts`.execute(db);
    await sql
      .raw(
        `create trigger accounts_lookups_changed after insert or delete or update of ${watched} on accounts for each statement execute function haberci_lookups_changed('lookups')`,
      )
      .execute(db);
  }
}
