/**
 * Refunds in the ledger (docs/resellers.md, "Refunds"): the reasons their rows carry, and
 * how a ledger reason is classed in usage and statements. One refund per message at most
 * (the refund primitive's key `message:<id>`), whatever asked for it.
 */

/** Why a message's credit came back: it ended failed by a receipt, was refused at submit, expired, or was cancelled. */
export type RefundCause = 'failed' | 'rejected' | 'expired' | 'cancelled';

/** The ledger reason of a cancel's refunds (written since migration 0057; never changes). */
export const cancelRefundReason = 'cancelled by the customer';

/**
 * The ledger reason of a refund of an undelivered message. `ofCustomer`: the provider gave a
 * reseller back the credit of one of its customers' messages, and the reseller's policy for
 * that customer keeps it (docs/resellers.md).
 */
export function refundReason(cause: Exclude<RefundCause, 'cancelled'>, ofCustomer: boolean): string {
  return ofCustomer ? `refund: ${cause}, a customer's message` : `refund: ${cause}`;
}

/** Whether a positive ledger row is credit given back (a refund of some cause). */
export function isRefundReason(reason: string): boolean {
  return reason.startsWith('refund') || reason === cancelRefundReason;
}

/** The send paths' ledger reason: `<kind> send` (sms, otp, group, ...). */
export function isSendReason(reason: string): boolean {
  return reason.endsWith(' send');
}

/** The ledger reasons of credit moved between a reseller and its customer: the giver's, the taker's. */
export const moveReasons = {
  fund: { from: 'funding of customer', to: 'funded by reseller' },
  takeBack: { from: 'taken back by reseller', to: 'taken back from customer' },
} as const;

/** Whether a ledger row is credit moved between a reseller and its customer. */
export function isMoveReason(reason: string): boolean {
  return Object.values(moveReasons).some((r) => r.from === reason || r.to === reason);
}
