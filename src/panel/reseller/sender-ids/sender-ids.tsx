/**
 * The sender IDs the reseller's customers requested, waiting for the reseller: approve
 * (the request goes on to the provider's queue) or reject with a reason the customer
 * sees. Decisions are the desk's, with the audit row in the same transaction; a request of
 * another account, or one no longer waiting, is not found.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResellerArea, ResellerDoor } from '../door.js';
import type { RefusedRejection } from '../../kit/sender-id-decision.js';
import { sendPage } from '../../layout.js';
import { senderIdQueuePage } from '../../kit/sender-id-queue.js';
import type { SenderIdQueue } from '../../kit/sender-id-queue.js';
import { field, idOf } from '../../kit/forms.js';
import { resellerSenderIdMessages } from './catalogue.js';
import { found } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

/** This side's queue, for the request's user and language. */
function queueOf(request: FastifyRequest, door: ResellerDoor): SenderIdQueue {
  const t = resellerSenderIdMessages[request.panel.lang];
  return {
    base: '/panel/reseller/sender-ids',
    texts: t,
    account: { header: t.colCustomer, href: (s) => `/panel/reseller/customers/${s.accountId}` },
    load: (after) => door.of(request).awaitingSenderIds(after),
    notices: () => ({ approved: t.doneApproved, rejected: t.doneRejected }),
  };
}

const queuePage = async (
  request: FastifyRequest,
  reply: FastifyReply,
  door: ResellerDoor,
  refused?: RefusedRejection,
) => sendPage(request, reply, await senderIdQueuePage(request, queueOf(request, door), refused));

export const resellerSenderIdsArea: ResellerArea = {
  name: 'reseller-sender-ids',
  nav: [{ path: '/reseller/sender-ids', label: (lang) => resellerSenderIdMessages[lang].nav, order: 210 }],
  routes(app, door) {
    app.get('/reseller/sender-ids', async (request, reply) => queuePage(request, reply, door));

    app.post<IdParams>('/reseller/sender-ids/:id/approve', async (request, reply) => {
      await found(door.of(request).reviewSenderId(idOf(request.params.id), { approve: true }));
      return reply.redirect('/panel/reseller/sender-ids?done=approved', 303);
    });

    app.post<IdParams>('/reseller/sender-ids/:id/reject', async (request, reply) => {
      const id = idOf(request.params.id);
      const reason = field(request.body, 'reason').trim().slice(0, 500);
      if (reason === '') {
        const t = resellerSenderIdMessages[request.panel.lang];
        return queuePage(request, reply, door, { id, reason, error: t.errReason });
      }
      await found(door.of(request).reviewSenderId(id, { approve: false, reason }));
      return reply.redirect('/panel/reseller/sender-ids?done=rejected', 303);
    });
  },
};
