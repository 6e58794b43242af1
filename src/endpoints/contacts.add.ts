import { z } from 'zod';
import { numbersBodyLimit } from './body-limits.js';
import { defineEndpoint } from './endpoint.js';
import { contactsAddReply } from './replies.js';
import { codedDetail, coded } from './fields.js';
import { groupIdField, groupKey, groupStatuses } from './group-fields.js';
import { contactEntries, maxContactEntries } from '../domain/contacts.js';
import { ok } from '../domain/result.js';

/** Field order is check order: group_id (TS-1029), mobile (TS-1025, TS-1060). */
const request = z.preprocess(
  // `numbers` is accepted for `mobile`, as the group send endpoints accept it for `sentto`.
  (body) =>
    typeof body === 'object' && body !== null && !('mobile' in body) && 'numbers' in body
      ? { ...body, mobile: (body as { numbers: unknown }).numbers }
      : body,
  z.object({
    group_id: groupIdField,
    mobile: z.preprocess(
      (v) => contactEntries(v) ?? v,
      z
        .array(z.string(), coded('TS-1025'))
        .min(1, 'TS-1025')
        .refine(
          (entries) => entries.length <= maxContactEntries,
          codedDetail('TS-1060', `At most ${maxContactEntries} numbers per request`),
        ),
    ),
  }),
);

/** POST /contacts/add: numbers into one of the account's groups, normalised and de-duplicated. */
export const contactsAdd = defineEndpoint({
  path: '/contacts/add',
  summary: 'Add numbers to a contact group',
  reply: contactsAddReply,
  envelope: 'result',
  key: groupKey,
  invalidBody: 'TS-1033',
  serverError: 'SRV-ERR',
  permissions: ['add_contact'],
  limited: true,
  bodyLimit: numbersBodyLimit(maxContactEntries),
  statuses: { ...groupStatuses, 'TS-1025': 400, 'TS-1060': 400, 'TS-1065': 403 },
  request,
  async handle({ body, caller, services }) {
    const added = await services.groups.addContacts(caller.account.id, body.group_id, body.mobile);
    return added.ok ? ok({ code: 'TS-1064', fields: { ...added.value } }) : added;
  },
});
