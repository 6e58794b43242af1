import { commonStatuses, defineEndpoint, smsSendKey, smsSendRules } from './endpoint.js';
import { senderIdsReply } from './replies.js';
import { noFields } from './fields.js';
import { ok } from '../domain/result.js';

/** POST /senderid/check: approved sender IDs of the account, newest first. */
export const senderidCheck = defineEndpoint({
  path: '/senderid/check',
  summary: 'List the approved sender IDs of the account',
  reply: senderIdsReply,
  ...smsSendRules,
  key: { ...smsSendKey, malformed: 'TS-1031' },
  permissions: ['check_senderid'],
  statuses: {
    ...commonStatuses,
    'TS-1033': 400,
    'TS-1050': 400,
    'TS-1031:key-malformed': 400,
    'TS-1031': 403,
    'TS-1038': 403,
    'TS-1030': 403,
  },
  request: noFields,
  async handle({ caller, services }) {
    const ids = await services.accounts.approvedSenderIds(caller.account.id);
    return ok({
      code: 'TS-1040',
      fields: {
        sender_ids_count: ids.length,
        // network_stat has no defined values (spec); 1 is sent as a constant.
        sender_ids: ids.map((s) => ({ id: s.id, title: s.title, status: 1, network_stat: 1 })),
      },
    });
  },
});
