import { z } from 'zod';
import { numbersBodyLimit } from './body-limits.js';
import { answered, defineEndpoint, smsSendRules } from './endpoint.js';
import { contactsAddReply } from './replies.js';
import { codedDetail, coded, fieldAlias } from './fields.js';
import { groupIdField, groupStatuses } from './group-fields.js';
import { contactEntries, maxContactEntries } from '../domain/contacts.js';
import { contactFieldsIssue, maxFieldedContacts } from '../domain/templates.js';
import { numberText } from './fields.js';

/**
 * `contacts`: numbers with their fields (`[{"mobile": "...", "fields": {"name": "..."}}]`),
 * beside or instead of `mobile`; at most 10,000 a request, each with at most 20 fields
 * (src/domain/templates.ts). A field that cannot be stored is TS-1033, naming it.
 */
const contactsField = z
  .array(
    z.object({
      mobile: numberText,
      fields: z
        .record(z.string(), z.unknown(), coded('TS-1033'))
        .superRefine((fields, ctx) => {
          const issue = contactFieldsIssue(fields);
          if (issue !== null) ctx.addIssue({ code: 'custom', ...codedDetail('TS-1033', issue) });
        })
        .optional(),
    }),
    coded('TS-1025'),
  )
  .max(maxFieldedContacts, codedDetail('TS-1060', `At most ${maxFieldedContacts} contacts per request`))
  .optional();

/** Field order is check order: group_id (TS-1029), mobile (TS-1025, TS-1060), contacts. */
const request = z.preprocess(
  // `numbers` is accepted for `mobile`, as the group send endpoints accept it for `sentto`.
  fieldAlias('mobile', 'numbers'),
  z
    .object({
      group_id: groupIdField,
      mobile: z
        .preprocess(
          (v) => contactEntries(v) ?? v,
          z
            .array(z.string(), coded('TS-1025'))
            .min(1, 'TS-1025')
            .refine(
              (entries) => entries.length <= maxContactEntries,
              codedDetail('TS-1060', `At most ${maxContactEntries} numbers per request`),
            ),
        )
        .optional(),
      contacts: contactsField,
    })
    .refine((b) => (b.mobile?.length ?? 0) + (b.contacts?.length ?? 0) > 0, 'TS-1025'),
);

/** POST /contacts/add: numbers into one of the account's groups, normalised and de-duplicated. */
export const contactsAdd = defineEndpoint({
  path: '/contacts/add',
  summary: 'Add numbers to a contact group',
  reply: contactsAddReply,
  ...smsSendRules,
  permissions: ['add_contact'],
  // The numbers' bound, or 10,000 contacts with a few short fields each, whichever is larger.
  bodyLimit: Math.max(numbersBodyLimit(maxContactEntries), maxFieldedContacts * 1024),
  statuses: { ...groupStatuses, 'TS-1025': 400, 'TS-1060': 400, 'TS-1065': 403 },
  request,
  async handle({ body, caller, services }) {
    const added = await services.groups.addContacts(
      caller.account.id,
      body.group_id,
      body.mobile ?? [],
      body.contacts ?? [],
    );
    return answered('TS-1064', added);
  },
});
