/**
 * The refund primitive (docs/decisions.md, "Campaign controls"): credit given back once per
 * key, whatever policy asks and whatever races with it. The key is the primary key of
 * `refunds` (migration 0057): a key inserted before, by this call or by any other
 * transaction, inserts nothing (on PostgreSQL a concurrent insert of the same key waits for
 * the first transaction, then inserts nothing), and only the keys this call inserted move
 * a balance. Called inside the transaction of the state change that earns the refund.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { BalanceBucket, Refund } from '../../ports/accounts.js';
import type { RefundsTable } from './schema.js';
import type { PartContext } from './store-part.js';
import { columnsOf, preparedRows } from './prepared-query.js';

type RefundRow = Insertable<RefundsTable>;
/** Rows per prepared INSERT (six values each, well inside the parameter limits). */
const refundChunk = 256;
const refundInsert = preparedRows(
  (db, rows: RefundRow[]) =>
    db
      .insertInto('refunds')
      .values(rows)
      .onConflict((oc) => oc.column('refund_key').doNothing())
      .returning('refund_key'),
  columnsOf<RefundRow>({
    refund_key: true,
    account_id: true,
    bucket: true,
    amount: true,
    reason: true,
    created_at: true,
  }),
);

/**
 * Credit given back ahead of its refunds' keys, by bucket (a large cancel's, migration 0063):
 * the keys' refunds use it up first and move a balance only past it. Changed in place.
 */
export interface CreditAhead {
  main: number;
  international: number;
}

/**
 * `accounts.refund` (src/ports/accounts.ts), on a transaction's context. With `ahead`, the
 * credit of the keys inserted is taken from it first (it was given back already), and only
 * the rest moves a balance; the answer counts both.
 */
export async function refundOnce(
  context: PartContext,
  refunds: readonly Refund[],
  reason: string,
  reference: string | null,
  now: number,
  ahead?: CreditAhead,
): Promise<number> {
  const db = context.db;
  const given = refunds.filter((r) => r.amount > 0);
  if (given.length === 0) return 0;
  const fresh = new Set<string>();
  for (let i = 0; i < given.length; i += refundChunk) {
    const rows = given.slice(i, i + refundChunk).map((r): RefundRow => ({
      refund_key: r.key,
      account_id: r.accountId,
      bucket: r.bucket,
      amount: r.amount,
      reason,
      created_at: now,
    }));
    for (const row of (await db.executeQuery(refundInsert(db, rows))).rows) fresh.add(row.refund_key);
  }
  const totals = new Map<string, { accountId: number; bucket: BalanceBucket; amount: number }>();
  for (const r of given) {
    if (!fresh.delete(r.key)) continue;
    const key = `${r.accountId}:${r.bucket}`;
    const t = totals.get(key) ?? { accountId: r.accountId, bucket: r.bucket, amount: 0 };
    t.amount += r.amount;
    totals.set(key, t);
  }
  let refunded = 0;
  // Accounts in id order, as the send paths lock them: concurrent refunds cannot deadlock.
  for (const t of [...totals.values()].sort((a, b) => a.accountId - b.accountId)) {
    const covered = ahead ? Math.min(ahead[t.bucket], t.amount) : 0;
    if (ahead) ahead[t.bucket] -= covered;
    refunded += covered + (await credit(context, t.accountId, t.bucket, t.amount - covered, reason, reference, now));
  }
  return refunded;
}

/** Adds `amount` to an account's bucket with its ledger row; the amount added (0: no such account). */
export async function credit(
  context: PartContext,
  accountId: number,
  bucket: BalanceBucket,
  amount: number,
  reason: string,
  reference: string | null,
  now: number,
): Promise<number> {
  if (amount <= 0) return 0;
  const db = context.db;
  const column = bucket === 'main' ? 'balance_main' : 'balance_international';
  const updated = await db
    .updateTable('accounts')
    .set({ [column]: sql`${sql.ref(column)} + ${amount}` })
    .where('id', '=', accountId)
    .returning(sql<number>`${sql.ref(column)}`.as('balance'))
    .executeTakeFirst();
  if (!updated) return 0;
  context.caches?.balancesChanged();
  await db
    .insertInto('ledger')
    .values({
      account_id: accountId,
      bucket,
      delta: amount,
      balance_after: Number(updated.balance),
      reason,
      reference,
      created_at: now,
    })
    .execute();
  return amount;
}
