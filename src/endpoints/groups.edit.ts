import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { groupEditReply } from './replies.js';
import { groupIdField, groupKey, groupNameField, groupStatuses } from './group-fields.js';
import { ok } from '../domain/result.js';

/** POST /groups/edit: renames one of the account's groups. */
export const groupsEdit = defineEndpoint({
  path: '/groups/edit',
  summary: 'Rename a contact group',
  reply: groupEditReply,
  envelope: 'result',
  key: groupKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['edit_group'],
  limited: true,
  statuses: { ...groupStatuses, 'TS-1084': 403 },
  request: z.object({ group_id: groupIdField, name: groupNameField }),
  async handle({ body, caller, services }) {
    const renamed = await services.groups.rename(caller.account.id, body.group_id, body.name);
    return renamed.ok ? ok({ code: 'TS-1064', fields: { new_name: renamed.value.name } }) : renamed;
  },
});
