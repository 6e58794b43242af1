import { defineEndpoint } from './endpoint.js';
import { blacklistStatusReply } from './replies.js';
import { blacklistEndpoint } from './blacklist-fields.js';

/** POST /blacklist/post/status: whether a number is on the account's blocking list, and since when. */
export const blacklistPostStatus = defineEndpoint({
  path: '/blacklist/post/status',
  summary: 'Ask whether a number is on the blocking list',
  reply: blacklistStatusReply,
  ...blacklistEndpoint,
  // The answer is the use case's: its code (blocked or not) and fields.
  handle({ body, caller, services }) {
    return services.blocklist.status(caller.account.id, body.number);
  },
});
