import { defineEndpoint, smsSendRules } from './endpoint.js';
import { groupListReply } from './replies.js';
import { noFields } from './fields.js';
import { groupStatuses } from './group-fields.js';
import { ok } from '../domain/result.js';

/** POST /groups/list: the account's groups, newest first. */
export const groupsList = defineEndpoint({
  path: '/groups/list',
  summary: 'List the contact groups of the account',
  reply: groupListReply,
  ...smsSendRules,
  permissions: ['list_groups'],
  statuses: { ...groupStatuses, 'TS-1089': 403 },
  request: noFields,
  async handle({ caller, services }) {
    const groups = await services.groups.list(caller.account.id);
    return ok({ code: 'TS-1064', fields: { groups_count: groups.length, groups } });
  },
});
