/**
 * What the reseller endpoints (/subaccounts/..., ../shared/interfaces.md "Resellers") share:
 * the key rule, the HTTP status of each code, the fields, the success answers.
 */
import { z } from 'zod';
import { answered, defineEndpoint, ourStatuses, smsSendRules } from './endpoint.js';
import type { Endpoint, StatusMap } from './endpoint.js';
import { coded, codedDetail, integerField, storableText } from './fields.js';
import { reply } from './replies.js';
import type { ReplyShape } from './replies.js';
import type { Caller } from '../services/auth.js';
import type { ResellerCaller, ResellerService } from '../services/reseller-service.js';
import type { Result } from '../domain/result.js';
import { maxMoveAmount } from '../services/reseller-service.js';

/**
 * TS-1065: the key lacks manage_subaccounts, or its account is no reseller. TS-1170: the
 * account_id is no customer of this reseller (another reseller's, the provider's, or none:
 * one answer for all). TS-1027: the giver's balance does not cover a move.
 */
const subaccountStatuses: StatusMap = {
  ...ourStatuses,
  'TS-1060': 400,
  'TS-1065': 403,
  'TS-1027': 403,
  'TS-1170': 403,
};

/** What the six endpoints declare alike: envelope, key rule, codes, the permission. */
const subaccountCommon = {
  ...smsSendRules,
  permissions: ['manage_subaccounts'],
  statuses: subaccountStatuses,
} as const;

export const accountIdField = integerField('TS-1033').refine((v) => v > 0, 'TS-1033');

export const nameField = z
  .string(coded('TS-1033'))
  .transform((v) => v.trim())
  .refine((v) => v.length >= 1 && v.length <= 100, codedDetail('TS-1033', 'name must be 1 to 100 characters'))
  .superRefine(storableText('TS-1033', 'name'));

export const emailField = z.string(coded('TS-1033')).max(254, 'TS-1033').superRefine(storableText('TS-1033', 'email'));

export const amountField = integerField('TS-1033').refine(
  (v) => v !== 0 && Math.abs(v) <= maxMoveAmount,
  codedDetail('TS-1033', `amount must be a whole number, not 0, at most ${maxMoveAmount} either way`),
);

export const flagField = integerField('TS-1033').refine((v) => v === 0 || v === 1, 'TS-1033');

export const statusField = z.enum(['Active', 'Suspended'], coded('TS-1033'));

export const dateField = z.string(coded('TS-1033')).regex(/^\d{4}-\d{2}-\d{2}$/, 'TS-1033');

/** The reseller acting, from the request's caller. */
function resellerOf(caller: Caller): ResellerCaller {
  return { accountId: caller.account.id, keyId: caller.key.id, address: caller.clientIp };
}

/**
 * One of the reseller endpoints: their shared rules, and `run`, its use case for the
 * reseller acting, whose value is the fields of the TS-1064 answer.
 */
export function subaccountEndpoint<S extends z.ZodTypeAny>(endpoint: {
  path: string;
  summary: string;
  reply: ReplyShape;
  request: S;
  run: (resellers: ResellerService, reseller: ResellerCaller, body: z.output<S>) => Promise<Result<object>>;
}): Endpoint<S> {
  const { run, ...described } = endpoint;
  return defineEndpoint({
    ...described,
    ...subaccountCommon,
    async handle({ body, caller, services }) {
      return answered('TS-1064', await run(services.resellers, resellerOf(caller), body));
    },
  });
}

const int = z.int();
const customer = {
  account_id: int,
  name: z.string(),
  status: z.enum(['Active', 'Suspended']),
  balance_main: int,
  balance_international: int,
};
const balances = z.strictObject({ account_id: int, balance_main: int, balance_international: int });
const perBucket = z.strictObject({ main: int, international: int });

export const subaccountCreateReply = reply(['TS-1064'], {
  ...customer,
  user_id: int.optional().meta({ description: 'With email: the panel user created for the customer' }),
  set_password_token: z
    .string()
    .optional()
    .meta({ description: 'With email: the one-time token of the set-password link (72 hours); shown once' }),
});

export const subaccountListReply = reply(['TS-1064'], {
  accounts: z.array(z.strictObject(customer)),
  next_after: int.nullable().meta({ description: 'Send as after for the next page; null on the last page' }),
});

export const subaccountFundReply = reply(['TS-1064'], { reseller: balances, customer: balances });

export const subaccountStatusReply = reply(['TS-1064'], customer);

export const subaccountUpdateReply = reply(['TS-1064'], {
  ...customer,
  refund_undelivered: z.boolean().meta({
    description: "Whether the provider's refunds of this customer's failed and expired messages are passed on to it",
  }),
});

export const subaccountUsageReply = reply(['TS-1064'], {
  account_id: int,
  from: z.string(),
  to: z.string(),
  counts: z.strictObject({ messages: int, sms: int, delivered: int, failed: int, pending: int }).meta({
    description: 'Messages created in the period (Istanbul days); failed includes expired',
  }),
  credit_added: perBucket,
  credit_spent: perBucket,
  credit_refunded: perBucket,
  credit_taken_back: perBucket,
});
