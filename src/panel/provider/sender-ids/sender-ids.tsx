/**
 * The provider console's queue of sender IDs customers requested: approve, or reject with a
 * reason the customer sees. Decisions go through SenderIdReview, the service of `haberci
 * admin sender-id approve|reject`, with the audit row in the same transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderArea, ProviderDoor } from '../door.js';
import type { RefusedRejection } from '../../kit/sender-id-decision.js';
import { sendPage } from '../../layout.js';
import { senderIdQueuePage } from '../../kit/sender-id-queue.js';
import type { SenderIdQueue } from '../../kit/sender-id-queue.js';
import { field, idOf } from '../../kit/forms.js';
import { providerSenderIdMessages } from './catalogue.js';
import type { AdminResult } from '../../../services/admin-result.js';
import { orRefused } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

/** This side's queue, for the request's user and language. */
function queueOf(request: FastifyRequest, door: ProviderDoor): SenderIdQueue {
  const t = providerSenderIdMessages[request.panel.lang];
  return {
    base: '/panel/provider/sender-ids',
    texts: t,
    account: { header: t.colAccount, href: (s) => `/panel/provider/accounts/${s.accountId}` },
    load: (after) => door.of(request).console.pendingSenderIds(after),
    notices: (query) => {
      const title = (query.title ?? '').slice(0, 22);
      return { approved: t.doneApproved(title), rejected: t.doneRejected(title), already: t.alreadyReviewed };
    },
  };
}

const queuePage = async (
  request: FastifyRequest,
  reply: FastifyReply,
  door: ProviderDoor,
  refused?: RefusedRejection,
) => sendPage(request, reply, await senderIdQueuePage(request, queueOf(request, door), refused));

/** A request decided meanwhile (another member of staff, a page left open): the queue says so. */
const alreadyDecided = '/panel/provider/sender-ids?done=already';

/** The queue with the decision's notice, or with "already decided". */
async function decided(
  reply: FastifyReply,
  verb: 'approved' | 'rejected',
  decide: () => Promise<AdminResult<{ title: string }>>,
): Promise<FastifyReply> {
  const done = await orRefused(decide());
  if (done.ok)
    return reply.redirect(`/panel/provider/sender-ids?done=${verb}&title=${encodeURIComponent(done.value.title)}`, 303);
  if (done.code === 'ADM-DECIDED') return reply.redirect(alreadyDecided, 303);
  throw new Error(done.message);
}

export const providerSenderIdsArea: ProviderArea = {
  name: 'provider-sender-ids',
  nav: [{ path: '/provider/sender-ids', label: (lang) => providerSenderIdMessages[lang].nav, order: 20 }],
  routes(app, door) {
    app.get('/provider/sender-ids', async (request, reply) => queuePage(request, reply, door));

    app.post<IdParams>('/provider/sender-ids/:id/approve', async (request, reply) => {
      const id = idOf(request.params.id);
      return decided(reply, 'approved', () => door.of(request).console.approveSenderId(id));
    });

    app.post<IdParams>('/provider/sender-ids/:id/reject', async (request, reply) => {
      const id = idOf(request.params.id);
      const reason = field(request.body, 'reason').trim().slice(0, 500);
      if (reason === '') {
        const error = providerSenderIdMessages[request.panel.lang].errReason;
        return queuePage(request, reply, door, { id, reason, error });
      }
      return decided(reply, 'rejected', () => door.of(request).console.rejectSenderId(id, reason));
    });
  },
};
