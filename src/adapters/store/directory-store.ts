import { StorePart } from './store-part.js';
import { removeAccountRow } from './account-rows.js';
import type { Selectable } from 'kysely';
import type { ContactGroupsTable } from './schema.js';
import type { BlockedNumber, DirectoryStore, Group } from '../../ports/directory-store.js';

/** Rows per multi-row INSERT: well inside SQLite's and PostgreSQL's bound-parameter limits. */
const insertChunk = 1000;

function toGroup(row: Selectable<ContactGroupsTable>): Group {
  return { id: row.id, accountId: row.account_id, name: row.name, createdAt: Number(row.created_at) };
}

/** A unique-index violation in either dialect (SQLite's constraint codes, PostgreSQL's 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

export class SqlDirectoryStore extends StorePart implements DirectoryStore {
  async createGroup(accountId: number, name: string, now: number): Promise<Group | 'duplicate'> {
    // The unique index on (account_id, name) settles racing creations: the loser inserts nothing.
    const row = await this.db
      .insertInto('contact_groups')
      .values({ account_id: accountId, name, created_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ? toGroup(row) : 'duplicate';
  }

  async renameGroup(accountId: number, groupId: number, name: string): Promise<Group | 'duplicate' | 'not-found'> {
    try {
      const row = await this.db
        .updateTable('contact_groups')
        .set({ name })
        .where('id', '=', groupId)
        .where('account_id', '=', accountId)
        .returningAll()
        .executeTakeFirst();
      return row ? toGroup(row) : 'not-found';
    } catch (error) {
      if (isUniqueViolation(error)) return 'duplicate';
      throw error;
    }
  }

  async deleteGroup(accountId: number, groupId: number): Promise<boolean> {
    // Contacts go with their group (ON DELETE CASCADE).
    return removeAccountRow(this.db, 'contact_groups', accountId, groupId);
  }

  async listGroups(accountId: number): Promise<Group[]> {
    const rows = await this.db
      .selectFrom('contact_groups')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toGroup);
  }

  async addContacts(
    accountId: number,
    groupId: number,
    numbers: readonly string[],
    now: number,
  ): Promise<number | null> {
    return this.transact(async ({ db }) => {
      // FOR SHARE holds off a concurrent delete of the group until the contacts are in (and
      // makes this wait for, then see, a delete already under way). SQLite has one writer.
      const group = await db
        .selectFrom('contact_groups')
        .select('id')
        .where('id', '=', groupId)
        .where('account_id', '=', accountId)
        .$call((qb) => this.sql.forShare(qb))
        .executeTakeFirst();
      if (!group) return null;
      let added = 0;
      for (let i = 0; i < numbers.length; i += insertChunk) {
        const rows = numbers
          .slice(i, i + insertChunk)
          .map((number) => ({ group_id: groupId, number, created_at: now }));
        const inserted = await db
          .insertInto('contacts')
          .values(rows)
          .onConflict((oc) => oc.columns(['group_id', 'number']).doNothing())
          .returning('number')
          .execute();
        added += inserted.length;
      }
      return added;
    });
  }

  async blockNumber(
    accountId: number,
    entry: { number: string; subscriber: string },
    now: number,
  ): Promise<'added' | 'exists'> {
    const row = await this.db
      .insertInto('blocked_numbers')
      .values({ account_id: accountId, subscriber: entry.subscriber, number: entry.number, created_at: now })
      .onConflict((oc) => oc.columns(['account_id', 'subscriber']).doNothing())
      .returning('subscriber')
      .executeTakeFirst();
    return row ? 'added' : 'exists';
  }

  async findBlocked(accountId: number, subscriber: string): Promise<BlockedNumber | null> {
    const row = await this.db
      .selectFrom('blocked_numbers')
      .select(['number', 'created_at'])
      .where('account_id', '=', accountId)
      .where('subscriber', '=', subscriber)
      .executeTakeFirst();
    return row ? { number: row.number, createdAt: Number(row.created_at) } : null;
  }

  async unblockNumber(accountId: number, subscriber: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('blocked_numbers')
      .where('account_id', '=', accountId)
      .where('subscriber', '=', subscriber)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
