/**
 * The refund primitive (docs/decisions.md, "Campaign controls"): credit given back once per
 * key, whatever policy asks and whatever races with it. The key is the primary key of
 * `refunds` (migration 0057): a key inserted before, by this call or by any other
 * transaction, inserts nothing (on PostgreSQL a concurrent insert of the same key waits for
 * the first transaction, then inserts nothing), and only the keys this call inserted move
 * a balance. Called inside the transaction of the state change that earns the refund. Each
 * refund may carry its own reason (a batch of receipts refunds failed and expired messages
 * together): one ledger row per account, bucket and reason.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { BalanceBucket, Refund } from '../../ports/accounts.js';
import type { RefundsTable } from './schema.js';
import type { PartContext } from './store-part.js';
import { columnsOf, preparedRows } from './prepared-query.js';

type RefundRow = Insertable<RefundsTable>;
/** What one account's balance gets back in one call, and its parts by reason. */
interface Total {
  accountId: number;
  bucket: BalanceBucket;
  amount: number;
  byReason: Map<string, { amount: number; keys: string[] }>;
}
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
      reason: r.reason ?? reason,
      created_at: now,
    }));
    for (const row of (await db.executeQuery(refundInsert(db, rows))).rows) fresh.add(row.refund_key);
  }
  // One balance update per account and bucket; within it one ledger row per reason.
  const totals = new Map<string, Total>();
  for (const r of given) {
    if (!fresh.delete(r.key)) continue;
    const key = `${r.accountId}:${r.bucket}`;
    const t = totals.get(key) ?? { accountId: r.accountId, bucket: r.bucket, amount: 0, byReason: new Map() };
    t.amount += r.amount;
    const why = r.reason ?? reason;
    const part = t.byReason.get(why) ?? { amount: 0, keys: [] };
    part.amount += r.amount;
    part.keys.push(r.key);
    t.byReason.set(why, part);
    totals.set(key, t);
  }
  let refunded = 0;
  // Accounts in id order, as the send paths lock them: concurrent refunds cannot deadlock.
  const ordered = [...totals.values()].sort((a, b) => a.accountId - b.accountId || a.bucket.localeCompare(b.bucket));
  for (const t of ordered) {
    // Credit given back ahead (a large cancel's) covers the first of it: no balance moves for that.
    const covered = ahead ? Math.min(ahead[t.bucket], t.amount) : 0;
    if (ahead) ahead[t.bucket] -= covered;
    refunded += covered;
    takeCovered(t, covered);
    if (t.amount <= 0) continue;
    const column = t.bucket === 'main' ? 'balance_main' : 'balance_international';
    const updated = await db
      .updateTable('accounts')
      .set({ [column]: sql`${sql.ref(column)} + ${t.amount}` })
      .where('id', '=', t.accountId)
      .returning(sql<number>`${sql.ref(column)}`.as('balance'))
      .executeTakeFirst();
    if (!updated) continue;
    context.caches?.balancesChanged();
    let after = Number(updated.balance) - t.amount;
    await db
      .insertInto('ledger')
      .values(
        [...t.byReason].map(([why, part]) => {
          after += part.amount;
          return {
            account_id: t.accountId,
            bucket: t.bucket,
            delta: part.amount,
            balance_after: after,
            reason: why,
            // A refund of one key names it, when the caller names nothing wider.
            reference: reference ?? (part.keys.length === 1 ? (part.keys[0] ?? null) : null),
            created_at: now,
          };
        }),
      )
      .execute();
    refunded += t.amount;
  }
  return refunded;
}

/** Takes `covered` off a total and its parts by reason, the first parts first. */
function takeCovered(t: Total, covered: number): void {
  let left = covered;
  t.amount -= covered;
  for (const [why, part] of t.byReason) {
    if (left <= 0) break;
    const taken = Math.min(left, part.amount);
    part.amount -= taken;
    left -= taken;
    if (part.amount === 0) t.byReason.delete(why);
  }
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
