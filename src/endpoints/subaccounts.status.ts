import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import {
  accountIdField,
  resellerOf,
  statusField,
  subaccountCommon,
  subaccountStatusReply,
} from './subaccount-fields.js';
import { ok } from '../domain/result.js';

/** POST /subaccounts/status: suspends a customer account (its keys then get TS-1030) or reactivates it. */
export const subaccountsStatus = defineEndpoint({
  path: '/subaccounts/status',
  summary: 'Suspend or reactivate a customer account',
  reply: subaccountStatusReply,
  ...subaccountCommon,
  request: z.object({ account_id: accountIdField, status: statusField }),
  async handle({ body, caller, services }) {
    const changed = await services.resellers.setStatus(resellerOf(caller), body.account_id, body.status);
    return changed.ok ? ok({ code: 'TS-1064', fields: { ...changed.value } }) : changed;
  },
});
