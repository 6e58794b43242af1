import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { accountIdField, dateField, resellerOf, subaccountCommon, subaccountUsageReply } from './subaccount-fields.js';
import { ok } from '../domain/result.js';

/** POST /subaccounts/usage: a customer's messages by outcome and credit over whole Istanbul days. */
export const subaccountsUsage = defineEndpoint({
  path: '/subaccounts/usage',
  summary: "A customer account's messages and credit over a period",
  reply: subaccountUsageReply,
  ...subaccountCommon,
  request: z.object({ account_id: accountIdField, from: dateField, to: dateField }),
  async handle({ body, caller, services }) {
    const usage = await services.resellers.usage(resellerOf(caller), body.account_id, body.from, body.to);
    return usage.ok ? ok({ code: 'TS-1064', fields: { ...usage.value } }) : usage;
  },
});
