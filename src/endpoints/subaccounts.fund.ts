import { z } from 'zod';
import {
  accountIdField,
  amountField,
  flagField,
  subaccountEndpoint,
  subaccountFundReply,
} from './subaccount-fields.js';

/**
 * POST /subaccounts/fund: a positive amount moves credit from the reseller to its customer,
 * a negative one takes the customer's unused credit back; `international: 1` moves the
 * international balance. TS-1027 when the giver's balance does not cover it.
 */
export const subaccountsFund = subaccountEndpoint({
  path: '/subaccounts/fund',
  summary: 'Give credit to a customer account, or take unused credit back',
  reply: subaccountFundReply,
  request: z.object({ account_id: accountIdField, amount: amountField, international: flagField.optional() }),
  run: (resellers, reseller, body) => resellers.fund(reseller, body.account_id, body.amount, body.international === 1),
});
