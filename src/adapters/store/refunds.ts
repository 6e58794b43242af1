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

/** `accounts.refund` (src/ports/accounts.ts), on a transaction's context. */
export async function refundOnce(
  context: PartContext,
  refunds: readonly Refund[],
  reason: string,
  reference: string | null,
  now: number,
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
    const column = t.bucket === 'main' ? 'balance_main' : 'balance_international';
    const updated = await db
      .updateTable('accounts')
      .set({ [column]: sql`${sql.ref(column)} + ${t.amount}` })
      .where('id', '=', t.accountId)
      .returning(sql<number>`${sql.ref(column)}`.as('balance'))
      .executeTakeFirst();
    if (!updated) continue;
    context.caches?.balancesChanged();
    await db
      .insertInto('ledger')
      .values({
        account_id: t.accountId,
        bucket: t.bucket,
        delta: t.amount,
        balance_after: Number(updated.balance),
        reason,
        reference,
        created_at: now,
      })
      .execute();
    refunded += t.amount;
  }
  return refunded;
}
