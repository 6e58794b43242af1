import { z } from 'zod';
import { defineEndpoint, smsSendRules } from './endpoint.js';
import { groupCreateReply } from './replies.js';
import { groupNameField, groupStatuses } from './group-fields.js';
import { ok } from '../domain/result.js';

/** POST /groups/create: a contact group with a name new to the account. */
export const groupsCreate = defineEndpoint({
  path: '/groups/create',
  summary: 'Create a contact group',
  reply: groupCreateReply,
  ...smsSendRules,
  permissions: ['create_group'],
  statuses: { ...groupStatuses, 'TS-1081': 403 },
  request: z.object({ name: groupNameField }),
  async handle({ body, caller, services }) {
    const created = await services.groups.create(caller.account.id, body.name);
    return created.ok ? ok({ code: 'TS-1064', fields: { group: created.value } }) : created;
  },
});
