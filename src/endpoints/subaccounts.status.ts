import { z } from 'zod';
import { accountIdField, statusField, subaccountEndpoint, subaccountStatusReply } from './subaccount-fields.js';

/** POST /subaccounts/status: suspends a customer account (its keys then get TS-1030) or reactivates it. */
export const subaccountsStatus = subaccountEndpoint({
  path: '/subaccounts/status',
  summary: 'Suspend or reactivate a customer account',
  reply: subaccountStatusReply,
  request: z.object({ account_id: accountIdField, status: statusField }),
  run: (resellers, reseller, body) => resellers.setStatus(reseller, body.account_id, body.status),
});
