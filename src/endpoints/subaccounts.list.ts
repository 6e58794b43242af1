import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { resellerOf, subaccountCommon, subaccountListReply } from './subaccount-fields.js';
import { integerField } from './fields.js';
import { ok } from '../domain/result.js';

/** POST /subaccounts/list: the calling reseller's customers, 500 a page in id order. */
export const subaccountsList = defineEndpoint({
  path: '/subaccounts/list',
  summary: "List this reseller's customer accounts with their balances",
  reply: subaccountListReply,
  ...subaccountCommon,
  request: z.object({
    after: integerField('TS-1033')
      .refine((v) => v >= 0, 'TS-1033')
      .optional(),
  }),
  async handle({ body, caller, services }) {
    const page = await services.resellers.list(resellerOf(caller), body.after);
    return page.ok ? ok({ code: 'TS-1064', fields: { ...page.value } }) : page;
  },
});
