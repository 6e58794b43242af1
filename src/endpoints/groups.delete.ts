import { z } from 'zod';
import { defineEndpoint, smsSendRules } from './endpoint.js';
import { groupDeleteReply } from './replies.js';
import { groupIdField, groupStatuses } from './group-fields.js';
import { ok } from '../domain/result.js';

/** POST /groups/delete: deletes one of the account's groups and its contacts. */
export const groupsDelete = defineEndpoint({
  path: '/groups/delete',
  summary: 'Delete a contact group with its contacts',
  reply: groupDeleteReply,
  ...smsSendRules,
  permissions: ['delete_group'],
  statuses: { ...groupStatuses, 'TS-1085': 403 },
  request: z.object({ group_id: groupIdField }),
  async handle({ body, caller, services }) {
    const deleted = await services.groups.remove(caller.account.id, body.group_id);
    return deleted.ok ? ok({ code: 'TS-1064' }) : deleted;
  },
});
