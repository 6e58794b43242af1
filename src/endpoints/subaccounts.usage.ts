import { z } from 'zod';
import { accountIdField, dateField, subaccountEndpoint, subaccountUsageReply } from './subaccount-fields.js';

/** POST /subaccounts/usage: a customer's messages by outcome and credit over whole Istanbul days. */
export const subaccountsUsage = subaccountEndpoint({
  path: '/subaccounts/usage',
  summary: "A customer account's messages and credit over a period",
  reply: subaccountUsageReply,
  request: z.object({ account_id: accountIdField, from: dateField, to: dateField }),
  run: (resellers, reseller, body) => resellers.usage(reseller, body.account_id, body.from, body.to),
});
