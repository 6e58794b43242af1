/**
 * A customer's usage over whole Istanbul days, as a reseller reads it (/subaccounts/usage):
 * its messages by outcome from the panel's daily rollups (derived just after each commit:
 * docs/decisions.md, "Rollups after the commit"), and its credit from the ledger, to the
 * unit, per balance: added (top-ups, funding), spent (sends), refunded, taken back.
 */
import type { BalanceBucket } from '../ports/accounts.js';
import type { Store } from '../ports/store.js';
import { dayOfDate, dayStart } from '../domain/istanbul-time.js';
import { fail, ok } from '../domain/result.js';
import { isRefundReason, isSendReason } from '../domain/refunds.js';
import type { Result } from '../domain/result.js';

/** The longest period one request reads: a year and a day (a leap year's). */
export const maxUsageDays = 367;

type PerBucket = Record<BalanceBucket, number>;

export interface Usage {
  account_id: number;
  from: string;
  to: string;
  /** Messages created in the period; pending = messages - delivered - failed (failed counts expired too). */
  counts: { messages: number; sms: number; delivered: number; failed: number; pending: number };
  credit_added: PerBucket;
  credit_spent: PerBucket;
  credit_refunded: PerBucket;
  credit_taken_back: PerBucket;
}

/** What a ledger reason is, for usage: the send paths write `<kind> send`, refunds `refund...` or a cancel's. */
export function reasonClass(reason: string, delta: 'added' | 'taken'): 'added' | 'spent' | 'refunded' | 'taken_back' {
  if (delta === 'added') return isRefundReason(reason) ? 'refunded' : 'added';
  return isSendReason(reason) ? 'spent' : 'taken_back';
}

const zero = (): PerBucket => ({ main: 0, international: 0 });

export async function usageOf(store: Store, accountId: number, from: string, to: string): Promise<Result<Usage>> {
  const first = dayOfDate(from);
  const last = dayOfDate(to);
  if (first === null || last === null) return fail('TS-1033', { message: 'from and to are dates, YYYY-MM-DD' });
  if (last < first) return fail('TS-1033', { message: 'to is before from' });
  if (last - first + 1 > maxUsageDays) return fail('TS-1033', { message: `At most ${maxUsageDays} days at once` });
  const [days, sums] = await Promise.all([
    store.panel.dailyCounts(accountId, first, last),
    store.accounts.ledgerSums(accountId, dayStart(first), dayStart(last + 1)),
  ]);
  const counts = { messages: 0, sms: 0, delivered: 0, failed: 0, pending: 0 };
  for (const d of days) {
    counts.messages += d.messages;
    counts.sms += d.sms;
    counts.delivered += d.delivered;
    counts.failed += d.failed;
  }
  counts.pending = counts.messages - counts.delivered - counts.failed;
  const credit = { added: zero(), spent: zero(), refunded: zero(), taken_back: zero() };
  for (const s of sums) {
    if (s.added > 0) credit[reasonClass(s.reason, 'added')][s.bucket] += s.added;
    if (s.taken > 0) credit[reasonClass(s.reason, 'taken')][s.bucket] += s.taken;
  }
  return ok({
    account_id: accountId,
    from,
    to,
    counts,
    credit_added: credit.added,
    credit_spent: credit.spent,
    credit_refunded: credit.refunded,
    credit_taken_back: credit.taken_back,
  });
}
