import { z } from 'zod';
import { answered, defineEndpoint } from './endpoint.js';
import { templateCreateReply } from './replies.js';
import { templateNameField, templateEndpointRules, templateTextField } from './template-fields.js';

/** POST /templates/create: a saved text with `{{field}}` placeholders, its name new to the account. */
export const templatesCreate = defineEndpoint({
  path: '/templates/create',
  summary: 'Save a text with {{field}} placeholders as a template',
  reply: templateCreateReply,
  ...templateEndpointRules,
  request: z.object({ name: templateNameField, text: templateTextField }),
  async handle({ body, caller, services }) {
    return answered('TS-1064', await services.templates.create(caller.account.id, body.name, body.text));
  },
});
