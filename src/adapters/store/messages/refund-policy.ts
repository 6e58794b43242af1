/**
 * Refunds of undelivered messages (docs/resellers.md, "Refunds"; migration 0060): the
 * account that gets a message's credit back when it ends failed or expired, read with the
 * rows a receipt or a rejected submit settles, and the refunds of one transaction given
 * through the refund primitive (`refunds.ts`, key `message:<id>`: once ever, whatever else
 * refunds the message).
 */
import { sql } from 'kysely';
import type { Refund } from '../../../ports/accounts.js';
import { isTurkeyNumber } from '../../../domain/recipients.js';
import { refundReason } from '../../../domain/refunds.js';
import type { RefundCause } from '../../../domain/refunds.js';
import type { PartContext } from '../store-part.js';
import { refundOnce } from '../refunds.js';

/**
 * The account that gets back the credit of the message row in hand (`messages.account_id`),
 * or null. An account of the provider's own: itself, if its policy says so. A reseller's
 * customer: nothing unless the provider refunds the reseller (the reseller's policy); then
 * the customer if the reseller passes it on (the customer's policy), else the reseller. Two
 * reads by primary key per row; with every policy off the answer is null and nothing more
 * is written.
 */
export const refundTarget = sql<number | string | null>`(select case
    when a.parent_id is null then case when a.refund_undelivered = 1 then a.id end
    when p.refund_undelivered = 1 then case when a.refund_undelivered = 1 then a.id else p.id end
  end from accounts a left join accounts p on p.id = a.parent_id where a.id = messages.account_id)`;

/** A settled message row with what its refund needs. */
export interface RefundableRow {
  id: number | string;
  account_id: number;
  recipient: string;
  sms_count: number;
  refund_to: number | string | null;
}

/** The refunds one transaction earns, given at its end in one call (accounts in id order). */
export class UndeliveredRefunds {
  private readonly refunds: Refund[] = [];

  /** A message that ended `cause`: refunded if its policy names an account. */
  add(row: RefundableRow, cause: Exclude<RefundCause, 'cancelled'>): void {
    if (row.refund_to === null) return;
    const to = Number(row.refund_to);
    this.refunds.push({
      key: `message:${Number(row.id)}`,
      accountId: to,
      bucket: isTurkeyNumber(row.recipient) ? 'main' : 'international',
      amount: Number(row.sms_count),
      reason: refundReason(cause, to !== row.account_id),
    });
  }

  /** Inside the transaction of the state change: nothing at all when no policy asked. */
  async give(context: PartContext, now: number): Promise<number> {
    if (this.refunds.length === 0) return 0;
    return refundOnce(context, this.refunds, refundReason('failed', false), null, now);
  }
}
