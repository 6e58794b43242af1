import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { accountIdField, flagField, resellerOf, subaccountCommon, subaccountUpdateReply } from './subaccount-fields.js';
import { ok } from '../domain/result.js';

/**
 * POST /subaccounts/update: a customer's refund policy (../shared/interfaces.md, "Resellers":
 * `--refund-undelivered`, the same through /subaccounts/...): with `refund_undelivered: 1`
 * the reseller passes on to the customer the credit the provider gives back for the
 * customer's failed and expired messages (docs/resellers.md, "Refunds").
 */
export const subaccountsUpdate = defineEndpoint({
  path: '/subaccounts/update',
  summary: "Change a customer account's refund policy",
  reply: subaccountUpdateReply,
  ...subaccountCommon,
  request: z.object({ account_id: accountIdField, refund_undelivered: flagField }),
  async handle({ body, caller, services }) {
    const changed = await services.resellers.setRefundPolicy(
      resellerOf(caller),
      body.account_id,
      body.refund_undelivered === 1,
    );
    return changed.ok ? ok({ code: 'TS-1064', fields: { ...changed.value } }) : changed;
  },
});
