import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { emailField, nameField, resellerOf, subaccountCreateReply, subaccountCommon } from './subaccount-fields.js';
import { ok } from '../domain/result.js';

/** POST /subaccounts/create: a customer account under the calling reseller (with email, its panel user). */
export const subaccountsCreate = defineEndpoint({
  path: '/subaccounts/create',
  summary: 'Create a customer account under this reseller',
  reply: subaccountCreateReply,
  ...subaccountCommon,
  request: z.object({ name: nameField, email: emailField.optional() }),
  async handle({ body, caller, services }) {
    const made = await services.resellers.create(resellerOf(caller), body.name, body.email);
    return made.ok ? ok({ code: 'TS-1064', fields: { ...made.value } }) : made;
  },
});
