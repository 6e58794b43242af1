import { z } from 'zod';
import { accountIdField, flagField, subaccountEndpoint, subaccountUpdateReply } from './subaccount-fields.js';

/**
 * POST /subaccounts/update: a customer's refund policy (../shared/interfaces.md, "Resellers":
 * `--refund-undelivered`, the same through /subaccounts/...): with `refund_undelivered: 1`
 * the reseller passes on to the customer the credit the provider gives back for the
 * customer's failed and expired messages (docs/resellers.md, "Refunds").
 */
export const subaccountsUpdate = subaccountEndpoint({
  path: '/subaccounts/update',
  summary: "Change a customer account's refund policy",
  reply: subaccountUpdateReply,
  request: z.object({ account_id: accountIdField, refund_undelivered: flagField }),
  run: (resellers, reseller, body) =>
    resellers.setRefundPolicy(reseller, body.account_id, body.refund_undelivered === 1),
});
