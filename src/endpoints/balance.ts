import { commonStatuses, defineEndpoint, smsSendKey, smsSendRules } from './endpoint.js';
import { balanceReply } from './replies.js';
import { noFields } from './fields.js';
import { ok } from '../domain/result.js';

/** POST /balance/: the account's SMS credit. */
export const balance = defineEndpoint({
  path: '/balance/',
  summary: 'Read the SMS credit of the account',
  reply: balanceReply,
  ...smsSendRules,
  key: { ...smsSendKey, malformed: 'TS-1025' },
  permissions: ['check_balance'],
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1050': 400,
    'TS-1025': 400,
    'TS-1031': 403,
    'TS-1065': 403,
    'TS-1030': 403,
  },
  request: noFields,
  async handle({ caller }) {
    return ok({ code: 'TS-1040', fields: { balance_main: caller.account.balanceMain } });
  },
});
