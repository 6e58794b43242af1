import { z } from 'zod';
import { subaccountEndpoint, subaccountListReply } from './subaccount-fields.js';
import { integerField } from './fields.js';

/** POST /subaccounts/list: the calling reseller's customers, 500 a page in id order. */
export const subaccountsList = subaccountEndpoint({
  path: '/subaccounts/list',
  summary: "List this reseller's customer accounts with their balances",
  reply: subaccountListReply,
  request: z.object({
    after: integerField('TS-1033')
      .refine((v) => v >= 0, 'TS-1033')
      .optional(),
  }),
  run: (resellers, reseller, body) => resellers.list(reseller, body.after),
});
