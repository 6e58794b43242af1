import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { templateCreateReply } from './replies.js';
import { templateNameField, templateEndpointRules, templateTextField } from './template-fields.js';
import { ok } from '../domain/result.js';

/** POST /templates/create: a saved text with `{{field}}` placeholders, its name new to the account. */
export const templatesCreate = defineEndpoint({
  path: '/templates/create',
  summary: 'Save a text with {{field}} placeholders as a template',
  reply: templateCreateReply,
  ...templateEndpointRules,
  request: z.object({ name: templateNameField, text: templateTextField }),
  async handle({ body, caller, services }) {
    const created = await services.templates.create(caller.account.id, body.name, body.text);
    return created.ok ? ok({ code: 'TS-1064', fields: { ...created.value } }) : created;
  },
});
