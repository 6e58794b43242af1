import { defineEndpoint } from './endpoint.js';
import { blacklistAddReply } from './replies.js';
import { blacklistEndpoint } from './blacklist-fields.js';
import { ok } from '../domain/result.js';

/** POST /blacklist/post/add: puts a Türkiye mobile number on the account's blocking list. */
export const blacklistPostAdd = defineEndpoint({
  path: '/blacklist/post/add',
  summary: 'Add a Türkiye mobile number to the blocking list',
  reply: blacklistAddReply,
  ...blacklistEndpoint,
  async handle({ body, caller, services }) {
    const added = await services.blocklist.add(caller.account.id, body.number);
    return added.ok ? ok({ code: added.value }) : added;
  },
});
