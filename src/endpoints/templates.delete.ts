import { z } from 'zod';
import { defineEndpoint } from './endpoint.js';
import { templateDeleteReply } from './replies.js';
import { templateIdField, templateEndpointRules } from './template-fields.js';
import { ok } from '../domain/result.js';

/** POST /templates/delete: one of the account's templates; sends already accepted keep their texts. */
export const templatesDelete = defineEndpoint({
  path: '/templates/delete',
  summary: 'Delete a template',
  reply: templateDeleteReply,
  ...templateEndpointRules,
  request: z.object({ template_id: templateIdField }),
  async handle({ body, caller, services }) {
    const removed = await services.templates.remove(caller.account.id, body.template_id);
    return removed.ok ? ok({ code: 'TS-1064' }) : removed;
  },
});
