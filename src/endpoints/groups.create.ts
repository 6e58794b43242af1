import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { groupCreateReply } from './replies.js';
import { groupKey, groupNameField, groupStatuses } from './group-fields.js';
import { ok } from '../domain/result.js';

/** POST /groups/create: a contact group with a name new to the account. */
export const groupsCreate = defineEndpoint({
  path: '/groups/create',
  summary: 'Create a contact group',
  reply: groupCreateReply,
  envelope: 'result',
  key: groupKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['create_group'],
  limited: true,
  statuses: { ...groupStatuses, 'TS-1081': 403 },
  request: z.object({ name: groupNameField }),
  async handle({ body, caller, services }) {
    const created = await services.groups.create(caller.account.id, body.name);
    return created.ok ? ok({ code: 'TS-1064', fields: { group: created.value } }) : created;
  },
});
