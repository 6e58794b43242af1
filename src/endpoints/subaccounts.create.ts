import { z } from 'zod';
import { emailField, nameField, subaccountCreateReply, subaccountEndpoint } from './subaccount-fields.js';

/** POST /subaccounts/create: a customer account under the calling reseller (with email, its panel user). */
export const subaccountsCreate = subaccountEndpoint({
  path: '/subaccounts/create',
  summary: 'Create a customer account under this reseller',
  reply: subaccountCreateReply,
  request: z.object({ name: nameField, email: emailField.optional() }),
  run: (resellers, reseller, body) => resellers.create(reseller, body.name, body.email),
});
