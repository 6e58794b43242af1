import { defineEndpoint } from './endpoint.js';
import { templateListReply } from './replies.js';
import { noFields } from './fields.js';
import { templateEndpointRules } from './template-fields.js';
import { ok } from '../domain/result.js';

/** POST /templates/list: the account's templates, newest first. */
export const templatesList = defineEndpoint({
  path: '/templates/list',
  summary: "List the account's templates",
  reply: templateListReply,
  ...templateEndpointRules,
  request: noFields,
  async handle({ caller, services }) {
    const templates = await services.templates.list(caller.account.id);
    return ok({ code: 'TS-1064', fields: { templates_count: templates.length, templates } });
  },
});
