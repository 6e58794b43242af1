/**
 * Credit moved between accounts (a reseller and its customer) and the reads of the
 * hierarchy: a reseller's customers, an account's ledger summed over a period and its
 * balances at an instant (statements: docs/resellers.md). Called by
 * SqlAccountStore; a move runs inside the transaction it is given.
 */
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { AccountListing, Balances, CreditMove, LedgerSum } from '../../ports/accounts.js';
import type { PartContext } from './store-part.js';
import type { AccountsTable } from './schema.js';

const columns = { main: 'balance_main', international: 'balance_international' } as const;

/**
 * The move itself. Both rows are locked in id order before either is written (PostgreSQL;
 * SQLite's BEGIN IMMEDIATE already holds the one writer's lock), as a send batch locks the
 * accounts it charges: two moves, or a move and a send, never wait for each other in a
 * circle. The giver's update is guarded (`>= amount`), so no balance goes below zero
 * whatever runs beside it; the CHECK on the column stands behind it.
 */
export async function moveCredit(
  context: PartContext,
  move: CreditMove,
  now: number,
): Promise<{ from: Balances; to: Balances } | 'insufficient' | null> {
  const { db } = context;
  if (!db.isTransaction) throw new Error('moveCredit runs inside a transaction');
  if (!Number.isSafeInteger(move.amount) || move.amount <= 0 || move.from === move.to)
    throw new Error('a credit move takes a whole amount above zero between two accounts');
  const ids = [move.from, move.to].sort((a, b) => a - b);
  let found = db.selectFrom('accounts').select('id').where('id', 'in', ids).orderBy('id');
  if (context.sql.locksRows) found = context.sql.forUpdate(found);
  if ((await found.execute()).length !== 2) return null;
  const column = columns[move.bucket];
  const taken = await db
    .updateTable('accounts')
    .set({ [column]: sql`${sql.ref(column)} - ${move.amount}` })
    .where('id', '=', move.from)
    .where(sql.ref(column), '>=', move.amount)
    .returning(['balance_main', 'balance_international'])
    .executeTakeFirst();
  if (!taken) return 'insufficient';
  const given = await db
    .updateTable('accounts')
    .set({ [column]: sql`${sql.ref(column)} + ${move.amount}` })
    .where('id', '=', move.to)
    .returning(['balance_main', 'balance_international'])
    .executeTakeFirstOrThrow();
  context.caches?.balancesChanged();
  const from = balances(taken);
  const to = balances(given);
  await db
    .insertInto('ledger')
    .values([
      {
        account_id: move.from,
        bucket: move.bucket,
        delta: -move.amount,
        balance_after: from[move.bucket],
        reason: move.reasons.from,
        reference: `account:${move.to}`,
        created_at: now,
      },
      {
        account_id: move.to,
        bucket: move.bucket,
        delta: move.amount,
        balance_after: to[move.bucket],
        reason: move.reasons.to,
        reference: `account:${move.from}`,
        created_at: now,
      },
    ])
    .execute();
  return { from, to };
}

function balances(row: { balance_main: number; balance_international: number }): Balances {
  return { main: Number(row.balance_main), international: Number(row.balance_international) };
}

/** Account rows in id order (SqlAccountStore makes them accounts). */
export async function accountRows(context: PartContext, listing: AccountListing): Promise<Selectable<AccountsTable>[]> {
  let query = context.db.selectFrom('accounts').selectAll();
  if (listing.parentId !== undefined) query = query.where('parent_id', '=', listing.parentId);
  if (listing.after !== undefined) query = query.where('id', '>', listing.after);
  return query.orderBy('id').limit(listing.limit).execute();
}

export async function customerCount(context: PartContext, parentId: number): Promise<number> {
  const row = await context.db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('parent_id', '=', parentId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** One pass over the account's ledger rows of the period (index ledger_account: account_id, id). */
export async function ledgerSums(
  context: PartContext,
  accountId: number,
  from: number,
  to: number,
): Promise<LedgerSum[]> {
  const rows = await context.db
    .selectFrom('ledger')
    .select([
      'bucket',
      'reason',
      sql<string | number>`sum(case when delta > 0 then delta else 0 end)`.as('added'),
      sql<string | number>`sum(case when delta < 0 then -delta else 0 end)`.as('taken'),
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy(['bucket', 'reason'])
    .execute();
  return rows.map((r) => ({ bucket: r.bucket, reason: r.reason, added: Number(r.added), taken: Number(r.taken) }));
}

/**
 * Each balance as the ledger had it just before `instant`: the balance after the account's
 * last row of that balance created before it (0 with none). Rows of one account are written
 * under its row lock, so their ids follow each other as their balances do.
 */
export async function ledgerBalancesBefore(
  context: PartContext,
  accountId: number,
  instant: number,
): Promise<Balances> {
  const out: Balances = { main: 0, international: 0 };
  for (const bucket of ['main', 'international'] as const) {
    const row = await context.db
      .selectFrom('ledger')
      .select('balance_after')
      .where('account_id', '=', accountId)
      .where('bucket', '=', bucket)
      .where('created_at', '<', instant)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    out[bucket] = row ? Number(row.balance_after) : 0;
  }
  return out;
}
