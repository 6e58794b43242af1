import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import {
  accountIdField,
  amountField,
  flagField,
  resellerOf,
  subaccountFundReply,
  subaccountCommon,
} from './subaccount-fields.js';
import { ok } from '../domain/result.js';

/**
 * POST /subaccounts/fund: a positive amount moves credit from the reseller to its customer,
 * a negative one takes the customer's unused credit back; `international: 1` moves the
 * international balance. TS-1027 when the giver's balance does not cover it.
 */
export const subaccountsFund = defineEndpoint({
  path: '/subaccounts/fund',
  summary: 'Give credit to a customer account, or take unused credit back',
  reply: subaccountFundReply,
  ...subaccountCommon,
  request: z.object({ account_id: accountIdField, amount: amountField, international: flagField.optional() }),
  async handle({ body, caller, services }) {
    const moved = await services.resellers.fund(
      resellerOf(caller),
      body.account_id,
      body.amount,
      body.international === 1,
    );
    return moved.ok ? ok({ code: 'TS-1064', fields: { ...moved.value } }) : moved;
  },
});
