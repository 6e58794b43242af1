/**
 * The reads and deletes the parts share on the tables an account owns rows of (sender IDs,
 * users, templates, groups, sends, inbound messages, OTP refusals): a row by its id (and,
 * where a caller names the account, only the account's), an account's rows in id order or
 * its newest ones, and the delete of one of them.
 */
import type { Selectable } from 'kysely';
import type { Database } from './schema.js';
import type { Executor } from './executor.js';

/** Tables whose rows are listed per account in id order. */
type ListedTable = 'sender_ids' | 'panel_users' | 'smpp_users';
/** Tables whose rows a caller reaches only through their account. */
type OwnedTable = 'contact_groups' | 'templates' | 'sends';
/** Tables read newest first per account, and the column that orders them. */
const newestFirst = { inbound_messages: 'id', otp_refusals: 'at' } as const;
type RecentTable = keyof typeof newestFirst;
type Row<T extends keyof Database> = Selectable<Database[T]>;

/** The row with this id, whoever owns it. */
export async function rowById<T extends ListedTable>(db: Executor, table: T, id: number): Promise<Row<T> | undefined> {
  return (await db
    .selectFrom(table as ListedTable)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()) as Row<T> | undefined;
}

/** Every row of the account, for the caller to order. */
function ofAccount(db: Executor, table: ListedTable | RecentTable, accountId: number) {
  return db.selectFrom(table).selectAll().where('account_id', '=', accountId);
}

/** The account's rows, in id order. */
export async function rowsOfAccount<T extends ListedTable>(
  db: Executor,
  table: T,
  accountId: number,
): Promise<Row<T>[]> {
  return (await ofAccount(db, table, accountId).orderBy('id').execute()) as Row<T>[];
}

/** The account's newest `limit` rows, newest first. */
export async function newestOfAccount<T extends RecentTable>(
  db: Executor,
  table: T,
  accountId: number,
  limit: number,
): Promise<Row<T>[]> {
  return (await ofAccount(db, table, accountId).orderBy(newestFirst[table], 'desc').limit(limit).execute()) as Row<T>[];
}

/** The row with this id if the account owns it. */
export async function accountRow<T extends OwnedTable>(
  db: Executor,
  table: T,
  accountId: number,
  id: number,
): Promise<Row<T> | undefined> {
  const row = await db
    .selectFrom(table as OwnedTable)
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row as Row<T> | undefined;
}

/** Deletes the row with this id if the account owns it: whether it did. */
export async function removeAccountRow(
  db: Executor,
  table: OwnedTable,
  accountId: number,
  id: number,
): Promise<boolean> {
  const result = await db.deleteFrom(table).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
