import { defineEndpoint } from './endpoint.js';
import { blacklistStatusReply } from './replies.js';
import { blacklistEndpoint } from './blacklist-fields.js';
import { ok } from '../domain/result.js';

/** POST /blacklist/post/status: whether a number is on the account's blocking list, and since when. */
export const blacklistPostStatus = defineEndpoint({
  path: '/blacklist/post/status',
  summary: 'Ask whether a number is on the blocking list',
  reply: blacklistStatusReply,
  ...blacklistEndpoint,
  async handle({ body, caller, services }) {
    const found = await services.blocklist.status(caller.account.id, body.number);
    return found.ok ? ok({ code: found.value.code, fields: found.value.fields }) : found;
  },
});
