import { z } from 'zod';
import { defineEndpoint, smsSendRules } from './endpoint.js';
import { groupEditReply } from './replies.js';
import { groupIdField, groupNameField, groupStatuses } from './group-fields.js';
import { ok } from '../domain/result.js';

/** POST /groups/edit: renames one of the account's groups. */
export const groupsEdit = defineEndpoint({
  path: '/groups/edit',
  summary: 'Rename a contact group',
  reply: groupEditReply,
  ...smsSendRules,
  permissions: ['edit_group'],
  statuses: { ...groupStatuses, 'TS-1084': 403 },
  request: z.object({ group_id: groupIdField, name: groupNameField }),
  async handle({ body, caller, services }) {
    const renamed = await services.groups.rename(caller.account.id, body.group_id, body.name);
    return renamed.ok ? ok({ code: 'TS-1064', fields: { new_name: renamed.value.name } }) : renamed;
  },
});
